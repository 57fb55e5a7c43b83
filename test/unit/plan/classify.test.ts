import { classifyResourceChange } from '../../../src/plan/classify';
import type { ResourceState } from '../../../src/state/types';
import type { ResourceSchemaInfo } from '../../../src/template/environment';
import { Unknown } from '../../../src/template/unknown';

const queueSchema: ResourceSchemaInfo = {
  primaryIdentifier: ['/properties/QueueUrl'],
  createOnlyProperties: ['/properties/FifoQueue', '/properties/QueueName'],
};
const instanceSchema: ResourceSchemaInfo = {
  createOnlyProperties: ['/properties/NetworkInterfaces/*/DeviceIndex', '/properties/ImageId'],
  conditionalCreateOnlyProperties: ['/properties/EngineVersion'],
};

function record(properties: Record<string, unknown>, extra: Partial<ResourceState> = {}): ResourceState {
  return { physicalId: 'id-1', resourceType: 'AWS::SQS::Queue', properties, ...extra };
}

describe('classifyResourceChange', () => {
  it('creates a resource without a record', () => {
    expect(
      classifyResourceChange('AWS::SQS::Queue', { properties: { A: 1 } }, undefined, queueSchema),
    ).toEqual({ action: 'CREATE', propertyChanges: [] });
  });

  it('finds no change when the resolved properties equal the record (key order aside)', () => {
    const change = classifyResourceChange(
      'AWS::SQS::Queue',
      { properties: { B: { y: 2, x: [1, 'a'] }, A: 1 } },
      record({ A: 1, B: { x: [1, 'a'], y: 2 } }),
      queueSchema,
    );
    expect(change).toEqual({ action: 'NO_CHANGE', propertyChanges: [] });
  });

  it('updates in place, listing each changed leaf', () => {
    const change = classifyResourceChange(
      'AWS::SQS::Queue',
      { properties: { VisibilityTimeout: 300, Tags: [{ Key: 'a', Value: '2' }], New: true } },
      record({ VisibilityTimeout: '300', Tags: [{ Key: 'a', Value: '1' }], Old: 'x' }),
      queueSchema,
    );
    expect(change.action).toBe('UPDATE');
    expect(change.propertyChanges).toEqual([
      { path: 'Properties.VisibilityTimeout', before: '300', after: 300 }, // no coercion: "300" and 300 differ
      { path: 'Properties.Tags[0].Value', before: '1', after: '2' },
      { path: 'Properties.Old', before: 'x', after: undefined },
      { path: 'Properties.New', before: undefined, after: true },
    ]);
  });

  it('replaces when a create-only property changes, marking that change', () => {
    const change = classifyResourceChange(
      'AWS::SQS::Queue',
      { properties: { QueueName: 'b', DelaySeconds: 5 } },
      record({ QueueName: 'a', DelaySeconds: 1 }),
      queueSchema,
    );
    expect(change.action).toBe('REPLACE');
    expect(change.replacementReason).toBe('create-only property QueueName changed');
    expect(change.propertyChanges).toEqual([
      { path: 'Properties.QueueName', before: 'a', after: 'b', causesReplacement: true },
      { path: 'Properties.DelaySeconds', before: 1, after: 5 },
    ]);
  });

  it('replaces when a create-only property is added or removed', () => {
    expect(
      classifyResourceChange('AWS::SQS::Queue', { properties: { FifoQueue: true } }, record({}), queueSchema)
        .action,
    ).toBe('REPLACE');
    expect(
      classifyResourceChange('AWS::SQS::Queue', { properties: {} }, record({ QueueName: 'a' }), queueSchema)
        .action,
    ).toBe('REPLACE');
  });

  describe('nested create-only pointers', () => {
    const before = { NetworkInterfaces: [{ DeviceIndex: '0', Description: 'a' }] };

    it('replace when the nested value changes', () => {
      const change = classifyResourceChange(
        'AWS::EC2::Instance',
        { properties: { NetworkInterfaces: [{ DeviceIndex: '1', Description: 'a' }] } },
        record(before, { resourceType: 'AWS::EC2::Instance' }),
        instanceSchema,
      );
      expect(change.action).toBe('REPLACE');
      expect(change.replacementReason).toBe('create-only property NetworkInterfaces.*.DeviceIndex changed');
      expect(change.propertyChanges).toEqual([
        {
          path: 'Properties.NetworkInterfaces[0].DeviceIndex',
          before: '0',
          after: '1',
          causesReplacement: true,
        },
      ]);
    });

    it('update when a sibling of the nested value changes', () => {
      const change = classifyResourceChange(
        'AWS::EC2::Instance',
        { properties: { NetworkInterfaces: [{ DeviceIndex: '0', Description: 'b' }] } },
        record(before, { resourceType: 'AWS::EC2::Instance' }),
        instanceSchema,
      );
      expect(change.action).toBe('UPDATE');
    });

    it('replace when an item carrying the nested value is added', () => {
      const change = classifyResourceChange(
        'AWS::EC2::Instance',
        { properties: { NetworkInterfaces: [{ DeviceIndex: '0', Description: 'a' }, { DeviceIndex: '1' }] } },
        record(before, { resourceType: 'AWS::EC2::Instance' }),
        instanceSchema,
      );
      expect(change.action).toBe('REPLACE');
      expect(change.propertyChanges[0]).toMatchObject({
        path: 'Properties.NetworkInterfaces',
        causesReplacement: true,
      });
    });
  });

  it('replaces when the type changes', () => {
    const change = classifyResourceChange('AWS::SNS::Topic', { properties: {} }, record({}), undefined);
    expect(change.action).toBe('REPLACE');
    expect(change.replacementReason).toBe('type changed from AWS::SQS::Queue to AWS::SNS::Topic');
    expect(change.propertyChanges[0]).toEqual({
      path: 'Type',
      before: 'AWS::SQS::Queue',
      after: 'AWS::SNS::Topic',
      causesReplacement: true,
    });
  });

  it('"may replace" when a create-only property is unknown before deploy; elsewhere an unknown is an update', () => {
    const unknownName = new Unknown('Bucket.Ref');
    const may = classifyResourceChange(
      'AWS::SQS::Queue',
      { properties: { QueueName: unknownName } },
      record({ QueueName: 'a' }),
      queueSchema,
    );
    expect(may.action).toBe('REPLACE');
    expect(may.mayReplace).toBe(true);
    expect(may.replacementReason).toContain('may change (known after deploy)');
    expect(may.propertyChanges).toEqual([
      {
        path: 'Properties.QueueName',
        before: 'a',
        after: unknownName,
        unknown: true,
        mayCauseReplacement: true,
      },
    ]);

    const update = classifyResourceChange(
      'AWS::SQS::Queue',
      { properties: { QueueName: 'a', Policy: { Arn: new Unknown('Topic.Arn') } } },
      record({ QueueName: 'a', Policy: { Arn: 'old' } }),
      queueSchema,
    );
    expect(update.action).toBe('UPDATE');
    expect(update.propertyChanges).toEqual([
      { path: 'Properties.Policy.Arn', before: 'old', after: expect.any(Unknown), unknown: true },
    ]);
  });

  it('marks a conditionally create-only change as "may cause replacement" and updates in place', () => {
    const change = classifyResourceChange(
      'AWS::EC2::Instance',
      { properties: { EngineVersion: '2' } },
      record({ EngineVersion: '1' }, { resourceType: 'AWS::EC2::Instance' }),
      instanceSchema,
    );
    expect(change.action).toBe('UPDATE');
    expect(change.propertyChanges).toEqual([
      { path: 'Properties.EngineVersion', before: '1', after: '2', mayCauseReplacement: true },
    ]);
  });

  it('treats a DeletionPolicy / UpdateReplacePolicy change alone as a record-only update', () => {
    const change = classifyResourceChange(
      'AWS::SQS::Queue',
      { properties: { A: 1 }, deletionPolicy: 'Retain' },
      record({ A: 1 }, { deletionPolicy: 'Delete' }),
      queueSchema,
    );
    expect(change).toEqual({
      action: 'UPDATE',
      policyOnly: true,
      propertyChanges: [{ path: 'DeletionPolicy', before: 'Delete', after: 'Retain' }],
    });
    // a pre-v5 record has no policy: the first deploy records it
    const first = classifyResourceChange(
      'AWS::SQS::Queue',
      { properties: {}, updateReplacePolicy: 'Retain' },
      record({}),
      queueSchema,
    );
    expect(first).toMatchObject({ action: 'UPDATE', policyOnly: true });
    // with a property change as well it is a normal update listing both
    const both = classifyResourceChange(
      'AWS::SQS::Queue',
      { properties: { A: 2 }, deletionPolicy: 'Retain' },
      record({ A: 1 }),
      queueSchema,
    );
    expect(both.action).toBe('UPDATE');
    expect(both.policyOnly).toBeUndefined();
    expect(both.propertyChanges.map((c) => c.path)).toEqual(['Properties.A', 'DeletionPolicy']);
  });

  it('updates a type without a schema (custom resource) in place', () => {
    const change = classifyResourceChange(
      'Custom::Thing',
      { properties: { ServiceToken: 'a', X: 2 } },
      record({ ServiceToken: 'a', X: 1 }, { resourceType: 'Custom::Thing' }),
      undefined,
    );
    expect(change.action).toBe('UPDATE');
  });
});
