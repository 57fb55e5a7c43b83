import { applyStackTags } from '../../../src/template/stack-tags';
import type { TaggingInfo } from '../../../src/template/stack-tags';
import { SchemaStore } from '../../../src/provisioning/schema-store';

const schemas = SchemaStore.default();
const taggingOf = (type: string): TaggingInfo | undefined => schemas.tryGet(type)?.tagging;

describe('applyStackTags', () => {
  const template = {
    Resources: {
      Queue: { Type: 'AWS::SQS::Queue', Properties: { Tags: [{ Key: 'team', Value: 'from-template' }] } },
      Param: { Type: 'AWS::SSM::Parameter', Properties: { Type: 'String', Value: 'v' } },
      Group: {
        Type: 'AWS::AutoScaling::AutoScalingGroup',
        Properties: { MaxSize: '1', MinSize: '0' },
      },
      Vault: { Type: 'AWS::Backup::BackupVault', Properties: { BackupVaultName: 'v' } },
      Computed: { Type: 'AWS::SNS::Topic', Properties: { Tags: { 'Fn::If': ['C', [], []] } } },
      Untaggable: { Type: 'AWS::SQS::QueuePolicy', Properties: { Queues: [], PolicyDocument: {} } },
    },
  };

  it('tags every taggable resource in its schema shape, template tags winning for the same key', () => {
    const result = applyStackTags(template, { team: 'from-stack', env: 'dev' }, taggingOf);
    const r = result.template.Resources as Record<string, { Properties: Record<string, unknown> }>;
    // standard list: the template's own `team` stays, `env` is added
    expect(r.Queue.Properties.Tags).toEqual([
      { Key: 'team', Value: 'from-template' },
      { Key: 'env', Value: 'dev' },
    ]);
    // map
    expect(r.Param.Properties.Tags).toEqual({ team: 'from-stack', env: 'dev' });
    // an Auto Scaling group's tags carry PropagateAtLaunch
    expect(r.Group.Properties.Tags).toEqual([
      { Key: 'team', Value: 'from-stack', PropagateAtLaunch: true },
      { Key: 'env', Value: 'dev', PropagateAtLaunch: true },
    ]);
    // a type whose tag property has another name
    expect(r.Vault.Properties.BackupVaultTags).toEqual({ team: 'from-stack', env: 'dev' });
    expect(r.Untaggable.Properties.Tags).toBeUndefined();
    expect(result.tagged.sort()).toEqual(['Group', 'Param', 'Queue', 'Vault']);
    // an intrinsic tag list cannot be merged before deploy
    expect(result.skipped).toEqual(['Computed']);
    expect(r.Computed.Properties.Tags).toEqual({ 'Fn::If': ['C', [], []] });
  });

  it('leaves the input untouched and returns it when there is nothing to add', () => {
    const before = JSON.stringify(template);
    applyStackTags(template, { env: 'dev' }, taggingOf);
    expect(JSON.stringify(template)).toBe(before);
    expect(applyStackTags(template, {}, taggingOf).template).toBe(template);
    const same = applyStackTags(template, { team: 'x' }, taggingOf);
    expect((same.template.Resources as Record<string, unknown>).Queue).toBe(template.Resources.Queue);
  });
});
