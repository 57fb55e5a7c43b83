import {
  buildCreateContext,
  generatePhysicalName,
  ownershipFor,
} from '../../../src/provisioning/create-context';

describe('generatePhysicalName', () => {
  it('is deterministic for a token and differs between tokens', () => {
    const a = generatePhysicalName('MyStack', 'Queue1', 'tok-1', { maxLength: 80 });
    expect(generatePhysicalName('MyStack', 'Queue1', 'tok-1', { maxLength: 80 })).toBe(a);
    expect(generatePhysicalName('MyStack', 'Queue1', 'tok-2', { maxLength: 80 })).not.toBe(a);
    expect(a).toMatch(/^MyStack-Queue1-[A-Z2-7]{13}$/);
  });

  it('keeps only allowed characters, honours lowercase and the suffix', () => {
    const name = generatePhysicalName('My_Stack.x', 'Bucket', 't', { maxLength: 63, lowercase: true });
    expect(name).toMatch(/^mystackx-bucket-[a-z2-7]{13}$/);
    const fifo = generatePhysicalName('S', 'Q', 't', {
      maxLength: 80,
      extraCharacters: '-_',
      suffix: '.fifo',
    });
    expect(fifo).toMatch(/^S-Q-[A-Z2-7]{13}\.fifo$/);
    const noDash = generatePhysicalName('a-b', 'c', 't', { maxLength: 40, extraCharacters: '' });
    expect(noDash).toMatch(/^abc[A-Z2-7]{13}$/);
  });

  it('shortens to maxLength, the stack name first', () => {
    const stack = 'S'.repeat(100);
    const logical = 'L'.repeat(10);
    const name = generatePhysicalName(stack, logical, 't', { maxLength: 64 });
    expect(name.length).toBe(64);
    expect(name).toContain(`-${logical}-`);
    const both = generatePhysicalName(stack, 'L'.repeat(100), 't', { maxLength: 40 });
    expect(both.length).toBe(40);
  });

  it('refuses a maxLength with no room for a name', () => {
    expect(() => generatePhysicalName('s', 'l', 't', { maxLength: 10 })).toThrow(RangeError);
  });
});

describe('ownershipFor', () => {
  const own = ownershipFor('Stack', 'Res', 'token-a');

  it('tags the stack, logical id and token', () => {
    expect(own.tags).toEqual({
      'cdkd:stack-name': 'Stack',
      'cdkd:logical-id': 'Res',
      'cdkd:token': 'token-a',
    });
  });

  it('classifies maps and tag lists', () => {
    expect(own.classify({ ...own.tags })).toBe('same-intent');
    expect(
      own.classify([
        { Key: 'cdkd:stack-name', Value: 'Stack' },
        { Key: 'cdkd:logical-id', Value: 'Res' },
        { Key: 'cdkd:token', Value: 'token-b' },
      ]),
    ).toBe('same-resource');
    expect(own.classify({ 'cdkd:stack-name': 'Other', 'cdkd:logical-id': 'Res' })).toBe('foreign');
    expect(own.classify(undefined)).toBe('foreign');
    expect(own.classify([])).toBe('foreign');
  });
});

describe('buildCreateContext', () => {
  it('binds the helpers to the create', () => {
    const signal = new AbortController().signal;
    const ctx = buildCreateContext({
      stackName: 'S',
      region: 'us-east-1',
      logicalId: 'L',
      idempotencyToken: 't',
      signal,
    });
    expect(ctx.signal).toBe(signal);
    expect(ctx.generatePhysicalName!({ maxLength: 80 })).toBe(
      generatePhysicalName('S', 'L', 't', { maxLength: 80 }),
    );
    expect(ctx.ownership!.classify(ctx.ownership!.tags)).toBe('same-intent');
  });
});
