import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SchemaStore, pointerToPath, DEFAULT_SCHEMAS_DIR } from '../../../src/provisioning/schema-store';
import { CdkdError } from '../../../src/util/errors';

describe('SchemaStore over the committed schemas/', () => {
  const store = new SchemaStore();

  it('lists every type from index.json and knows which exist', () => {
    const types = store.types();
    expect(types.length).toBeGreaterThan(1000);
    expect(types).toContain('AWS::SQS::Queue');
    expect([...types].sort()).toEqual(types);
    expect(store.has('AWS::SQS::Queue')).toBe(true);
    expect(store.has('AWS::SQS::Nope')).toBe(false);
    expect(store.specVersion()).toBe('0.1.216');
  });

  it('answers the engine helpers for AWS::SQS::Queue', () => {
    expect(store.primaryIdentifier('AWS::SQS::Queue')).toEqual(['/properties/QueueUrl']);
    expect(store.refIdentifier('AWS::SQS::Queue')).toEqual(['/properties/QueueUrl']);
    expect(store.attributes('AWS::SQS::Queue')).toEqual(['Arn', 'QueueName', 'QueueUrl']);
    expect(store.readOnlyPropertyNames('AWS::SQS::Queue')).toEqual(['Arn', 'QueueUrl']);
    expect(store.createOnlyProperties('AWS::SQS::Queue')).toEqual([
      '/properties/FifoQueue',
      '/properties/QueueName',
    ]);
    expect(store.propertyNames('AWS::SQS::Queue')).toContain('VisibilityTimeout');
    expect(store.writablePropertyNames('AWS::SQS::Queue')).not.toContain('Arn');
    expect(store.writablePropertyNames('AWS::SQS::Queue')).toContain('QueueName');
    expect(store.get('AWS::SQS::Queue').tagging).toEqual({
      taggable: true,
      tagPropertyName: 'Tags',
      variant: 'standard',
    });
  });

  it('returns the same parsed schema object on every call', () => {
    expect(store.get('AWS::SNS::Topic')).toBe(store.get('AWS::SNS::Topic'));
  });

  it('refuses an unknown type with a cdkd error naming it', () => {
    expect(() => store.get('AWS::Nope::Thing')).toThrow(/AWS::Nope::Thing/);
    try {
      store.get('AWS::Nope::Thing');
    } catch (err) {
      expect(CdkdError.isCdkdError(err)).toBe(true);
    }
    expect(store.tryGet('AWS::Nope::Thing')).toBeUndefined();
  });

  it('accepts valid properties', () => {
    expect(
      store.validate('AWS::SQS::Queue', {
        QueueName: 'q',
        VisibilityTimeout: 30,
        RedrivePolicy: { deadLetterTargetArn: 'arn', maxReceiveCount: 3 },
        Tags: [{ Key: 'a', Value: 'b' }],
      }),
    ).toEqual([]);
  });

  it('reports unknown, read-only, mistyped and missing properties with their paths', () => {
    const violations = store.validate('AWS::SQS::Queue', {
      Nope: 1,
      Arn: 'arn:aws:sqs:us-east-1:1:q',
      VisibilityTimeout: '30',
      Tags: [{ Key: 'a' }],
    });
    const byPath = Object.fromEntries(violations.map((v) => [v.path, v.message]));
    expect(byPath['/Nope']).toMatch(/Nope is not a property of AWS::SQS::Queue/);
    expect(byPath['/Arn']).toMatch(/read-only/);
    expect(byPath['/VisibilityTimeout']).toMatch(/must be integer/);
    expect(byPath['/Tags/0/Value']).toMatch(/Value is required/);
    expect(store.validate('AWS::SQS::QueuePolicy', { Queues: ['u'] }).map((v) => v.path)).toEqual([
      '/PolicyDocument',
    ]);
  });

  it('compiles the schemas of a sample of types with their nested definitions', () => {
    for (const type of [
      'AWS::DynamoDB::Table',
      'AWS::Lambda::Function',
      'AWS::EC2::VPC',
      'AWS::RDS::DBInstance',
      'AWS::QuickSight::Dashboard',
    ]) {
      expect(Array.isArray(store.validate(type, {}))).toBe(true);
    }
    const violations = store.validate('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S', Extra: 1 }],
    });
    expect(violations).toEqual([
      {
        path: '/AttributeDefinitions/0/Extra',
        message: 'Extra is not a property of AttributeDefinitions.0',
        keyword: 'additionalProperties',
      },
    ]);
  });

  it('resolves its default folder relative to the module', () => {
    expect(fs.existsSync(path.join(DEFAULT_SCHEMAS_DIR, 'index.json'))).toBe(true);
  });
});

describe('SchemaStore over another folder', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-store-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads a type file only when asked for it', () => {
    fs.writeFileSync(
      path.join(dir, 'index.json'),
      JSON.stringify({
        specVersion: 'x',
        types: { 'Acme::Widget::Thing': 'Acme-Widget-Thing.json', 'Acme::Broken::Thing': 'missing.json' },
      }),
    );
    fs.writeFileSync(
      path.join(dir, 'Acme-Widget-Thing.json'),
      JSON.stringify({
        $schema: 'http://json-schema.org/draft-07/schema#',
        typeName: 'Acme::Widget::Thing',
        type: 'object',
        properties: { Size: { type: 'integer' } },
        additionalProperties: false,
      }),
    );
    const store = new SchemaStore(dir);
    // The broken entry does not matter until someone asks for it.
    expect(store.types()).toEqual(['Acme::Widget::Thing', 'Acme::Broken::Thing']);
    expect(store.validate('Acme::Widget::Thing', { Size: 2 })).toEqual([]);
    expect(store.primaryIdentifier('Acme::Widget::Thing')).toEqual([]);
    expect(() => store.get('Acme::Broken::Thing')).toThrow(/missing\.json/);
  });

  it('says how to fix a missing schemas folder', () => {
    expect(() => new SchemaStore(path.join(dir, 'none')).types()).toThrow(/schemas are missing/);
  });
});

describe('pointerToPath', () => {
  it('splits and unescapes JSON pointers', () => {
    expect(pointerToPath('/properties/Endpoint/Address')).toEqual(['Endpoint', 'Address']);
    expect(pointerToPath('/properties/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
  });
});
