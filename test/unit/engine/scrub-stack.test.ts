/**
 * `cdkd scrub` against the in-process emulator, on records written the way a
 * binary from before redaction wrote them (raw objects, secrets in clear):
 * provider-declared secret attributes, nested-stack children (their templates
 * read from S3, or by scrubApp from the cloud assembly's file), the rollback
 * journal and the exports index rewritten, and a purge the bucket refuses.
 * Every check of "nothing in clear" reads EVERY version of EVERY object.
 */
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectVersionsCommand,
  PutBucketPolicyCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nestedTemplateSource } from '../../../src/engine/nested-template';
import { scrubApp } from '../../../src/engine/scrub-app';
import { needsScrub, scrubStackTree } from '../../../src/engine/scrub-stack';
import type { ScrubStackOptions } from '../../../src/engine/scrub-stack';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import type { RollbackJournal } from '../../../src/state/rollback-journal';
import type { StackState } from '../../../src/state/types';
import type { SynthesizedStack } from '../../../src/synth/cloud-assembly';
import { clearSecrets } from '../../../src/template/redaction';
import { parseTemplate } from '../../../src/template/types';
import { createLogger } from '../../../src/util/io-host';
import { iamProviderPack, PACK_NAME } from '../../../plugins/provider-iam/src/hook';
import { testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const PASSWORD = 'correct-horse-battery-staple';
jest.setTimeout(30_000);

describe('cdkd scrub against the emulator', () => {
  const ctx = useEmulator();
  let store: TestStore;
  let s3: S3Client;

  beforeEach(async () => {
    clearSecrets();
    store = await testStore(ctx.emulator);
    s3 = store.factory.get(S3Client);
  });

  /** Writes an object as an earlier binary did: bytes as given, no masking. */
  const putRaw = (key: string, body: unknown) =>
    s3.send(new PutObjectCommand({ Bucket: store.bucket.name, Key: key, Body: JSON.stringify(body) }));

  /** A record as an earlier binary stored it, written twice so an earlier version holds it too. */
  const putOldRecord = async (state: StackState) => {
    const key = store.bucket.keys.stateKey(state.stackName, REGION);
    await putRaw(key, { ...state, serial: 1 });
    await putRaw(key, { ...state, serial: 2 });
  };

  /** Every version of every object under `prefix`, with its body. */
  const allVersions = async (prefix = '') => {
    const out = await s3.send(new ListObjectVersionsCommand({ Bucket: store.bucket.name, Prefix: prefix }));
    const bodies: Array<{ key: string; latest: boolean; body: string }> = [];
    for (const v of out.Versions ?? []) {
      const obj = await s3.send(
        new GetObjectCommand({ Bucket: store.bucket.name, Key: v.Key, VersionId: v.VersionId }),
      );
      bodies.push({ key: v.Key!, latest: v.IsLatest === true, body: await obj.Body!.transformToString() });
    }
    return bodies;
  };
  const keysHolding = async (value: string, prefix = '') =>
    (await allVersions(prefix)).filter((v) => v.body.includes(value)).map((v) => v.key);

  const readJson = async <T>(key: string): Promise<T> => {
    const obj = await s3.send(new GetObjectCommand({ Bucket: store.bucket.name, Key: key }));
    return JSON.parse(await obj.Body!.transformToString()) as T;
  };

  const options = (extra: Partial<ScrubStackOptions> = {}): ScrubStackOptions => ({
    store,
    dryRun: false,
    logger: createLogger(store.host),
    ...extra,
  });

  const record = (stackName: string, fields: Partial<StackState>): StackState => ({
    version: 9,
    stackName,
    region: REGION,
    resources: {},
    outputs: {},
    exportNames: [],
    lastModified: 1,
    lineage: `lineage-${stackName}`,
    ...fields,
  });

  const noEchoTemplate = (extra: Record<string, unknown> = {}) =>
    parseTemplate({
      Parameters: { Pw: { Type: 'String', NoEcho: true } },
      Resources: {
        Param: { Type: 'AWS::SSM::Parameter', Properties: { Type: 'String', Value: { Ref: 'Pw' } } },
      },
      ...extra,
    });
  const paramRecord = {
    physicalId: 'param-1',
    resourceType: 'AWS::SSM::Parameter',
    properties: { Type: 'String', Value: PASSWORD },
  };

  it("redacts an AWS::IAM::AccessKey's SecretAccessKey from an old record, by the IAM pack's declaration", async () => {
    const minted = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const registry = ProviderRegistry.fromPacks(
      [{ pluginName: PACK_NAME, pluginType: 'core', result: iamProviderPack() }],
      SchemaStore.default(),
    );
    const template = parseTemplate({
      Resources: {
        User: { Type: 'AWS::IAM::User' },
        Key: { Type: 'AWS::IAM::AccessKey', Properties: { UserName: { Ref: 'User' } } },
        Stored: {
          Type: 'AWS::SecretsManager::Secret',
          Properties: { SecretString: { 'Fn::GetAtt': ['Key', 'SecretAccessKey'] } },
        },
      },
      Outputs: { KeySecret: { Value: { 'Fn::GetAtt': ['Key', 'SecretAccessKey'] } } },
    });
    await putOldRecord(
      record('Keys', {
        resources: {
          User: {
            physicalId: 'u',
            resourceType: 'AWS::IAM::User',
            properties: {},
            attributes: { Arn: 'arn:u' },
          },
          Key: {
            physicalId: 'AKIAEXAMPLE',
            resourceType: 'AWS::IAM::AccessKey',
            properties: { UserName: 'u' },
            attributes: { Id: 'AKIAEXAMPLE', SecretAccessKey: minted },
          },
          Stored: {
            physicalId: 'arn:secret',
            resourceType: 'AWS::SecretsManager::Secret',
            properties: { SecretString: minted },
          },
        },
        outputs: { KeySecret: minted },
      }),
    );
    expect(await keysHolding(minted)).toHaveLength(2);

    const [report] = await scrubStackTree(
      { stackName: 'Keys', region: REGION, template },
      options({ secretAttributes: (type) => registry.secretAttributesOf(type) }),
    );

    expect(report.sites.map((s) => s.path).sort()).toEqual([
      'outputs.KeySecret',
      'resources.Key.attributes.SecretAccessKey',
      'resources.Stored.properties.SecretString',
    ]);
    expect(report.noncurrentVersions).toEqual([
      { key: expect.stringContaining('Keys/us-east-1/state.json'), versions: 1 },
    ]);
    expect(await keysHolding(minted)).toEqual([]);
    const after = (await store.backend.getState('Keys', REGION))!.state;
    expect(after.resources.Key.attributes).toEqual({ Id: 'AKIAEXAMPLE', SecretAccessKey: '***' });
    expect(after.resources.Stored.properties.SecretString).toBe('***');
    expect(after.outputs.KeySecret).toBe('***');
  });

  it('walks into every nested-stack child, the deepest included, under the top-level lock', async () => {
    const assets = `assets-${Date.now().toString(36)}`;
    await s3.send(new CreateBucketCommand({ Bucket: assets }));
    const url = (key: string) => `https://s3.${REGION}.amazonaws.com/${assets}/${key}`;
    // The child's parameter is NoEcho; the grandchild's is not: it is found by the tree's secrets alone.
    await s3.send(
      new PutObjectCommand({
        Bucket: assets,
        Key: 'child.json',
        Body: JSON.stringify({
          Parameters: { Password: { Type: 'String', NoEcho: true } },
          Resources: {
            Param: {
              Type: 'AWS::SSM::Parameter',
              Properties: { Type: 'String', Value: { 'Fn::Join': ['', ['pw=', { Ref: 'Password' }]] } },
            },
            Grand: {
              Type: 'AWS::CloudFormation::Stack',
              Properties: { TemplateURL: url('grand.json'), Parameters: { Secret: { Ref: 'Password' } } },
            },
          },
        }),
      }),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: assets,
        Key: 'grand.json',
        Body: JSON.stringify({
          Parameters: { Secret: { Type: 'String' } },
          Resources: { Topic: { Type: 'AWS::SNS::Topic', Properties: { DisplayName: { Ref: 'Secret' } } } },
          Outputs: { Shown: { Value: { Ref: 'Secret' } } },
        }),
      }),
    );
    const parentTemplate = parseTemplate({
      Parameters: { DbPassword: { Type: 'String', NoEcho: true } },
      Resources: {
        Child: {
          Type: 'AWS::CloudFormation::Stack',
          Properties: { TemplateURL: url('child.json'), Parameters: { Password: { Ref: 'DbPassword' } } },
        },
      },
    });
    const nested = (
      name: string,
      logicalId: string,
      templateKey: string,
      parameters: Record<string, unknown>,
    ) => ({
      physicalId: `arn:aws:cloudformation:${REGION}:123456789012:stack/${name}~${logicalId}/id`,
      resourceType: 'AWS::CloudFormation::Stack',
      properties: { TemplateURL: url(templateKey), Parameters: parameters },
      attributes: {},
    });
    await putOldRecord(
      record('Parent', {
        resources: { Child: nested('Parent', 'Child', 'child.json', { Password: PASSWORD }) },
      }),
    );
    await putOldRecord(
      record('Parent~Child', {
        parentStack: 'Parent',
        parentLogicalId: 'Child',
        parentRegion: REGION,
        resources: {
          Param: { ...paramRecord, properties: { Type: 'String', Value: `pw=${PASSWORD}` } },
          Grand: nested('Parent~Child', 'Grand', 'grand.json', { Secret: PASSWORD }),
        },
      }),
    );
    await putOldRecord(
      record('Parent~Child~Grand', {
        parentStack: 'Parent~Child',
        parentLogicalId: 'Grand',
        parentRegion: REGION,
        resources: {
          Topic: {
            physicalId: 'arn:topic',
            resourceType: 'AWS::SNS::Topic',
            properties: { DisplayName: PASSWORD },
          },
        },
        outputs: { Shown: PASSWORD },
      }),
    );
    const scrubOptions = (dryRun: boolean) =>
      options({
        dryRun,
        nestedTemplate: nestedTemplateSource({ factory: store.factory, region: REGION, replacements: [] }),
      });
    const input = { stackName: 'Parent', region: REGION, template: parentTemplate };
    // The child's and the grandchild's keys (both begin so), two versions each.
    const childKeys = 'cdkd/Parent~Child';
    expect(await keysHolding(PASSWORD, childKeys)).toHaveLength(4);

    const planned = await scrubStackTree(input, scrubOptions(true));
    expect(planned.map((r) => [r.stackName, needsScrub(r), r.scrubbed])).toEqual([
      ['Parent', true, false],
      ['Parent~Child', true, false],
      ['Parent~Child~Grand', true, false],
    ]);
    expect(planned[2].sites.map((s) => s.path).sort()).toEqual([
      'outputs.Shown',
      'resources.Topic.properties.DisplayName',
    ]);
    expect(await keysHolding(PASSWORD, childKeys)).toHaveLength(4); // a dry run changes nothing

    const reports = await scrubStackTree(input, scrubOptions(false));
    expect(reports.map((r) => [r.stackName, r.scrubbed, r.purgeFailures])).toEqual([
      ['Parent', true, []],
      ['Parent~Child', true, []],
      ['Parent~Child~Grand', true, []],
    ]);
    expect(await keysHolding(PASSWORD, childKeys)).toEqual([]);
    expect(await keysHolding(PASSWORD)).toEqual([]);
    const child = (await store.backend.getState('Parent~Child', REGION))!.state;
    expect(child.resources.Param.properties.Value).toBe('pw=***');
    expect(child.resources.Grand.properties.Parameters).toEqual({ Secret: '***' });
    expect(child.parentStack).toBe('Parent');
    const grand = (await store.backend.getState('Parent~Child~Grand', REGION))!.state;
    expect(grand.resources.Topic.properties.DisplayName).toBe('***');
    expect(grand.outputs.Shown).toBe('***');
    // The children took no lock of their own: only the top-level stack's lock key was ever written.
    const lockKeys = [...new Set((await allVersions('cdkd/')).map((v) => v.key))].filter((k) =>
      k.endsWith('lock.json'),
    );
    expect(lockKeys).toEqual([]);
    const listed = await s3.send(
      new ListObjectVersionsCommand({ Bucket: store.bucket.name, Prefix: 'cdkd/' }),
    );
    expect(
      [...new Set((listed.DeleteMarkers ?? []).map((m) => m.Key))].filter((k) => k!.endsWith('lock.json')),
    ).toEqual(['cdkd/Parent/us-east-1/lock.json']);
  });

  it("scrubApp reads a child's template from the cloud assembly's file for its key, not from S3", async () => {
    // The TemplateURL names a bucket that does not exist: only the assembly's file can answer.
    const url = `https://s3.${REGION}.amazonaws.com/never-published/child.json`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-scrub-assembly-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'ParentChild.nested.template.json'),
        JSON.stringify({
          Parameters: { Password: { Type: 'String', NoEcho: true } },
          Resources: {
            Param: {
              Type: 'AWS::SSM::Parameter',
              Properties: { Type: 'String', Value: { Ref: 'Password' } },
            },
          },
        }),
      );
      const manifest = path.join(dir, 'Parent.assets.json');
      fs.writeFileSync(
        manifest,
        JSON.stringify({
          files: {
            h1: {
              source: { path: 'ParentChild.nested.template.json', packaging: 'file' },
              destinations: { d: { bucketName: 'never-published', objectKey: 'child.json' } },
            },
          },
        }),
      );
      // Only the child's template says its parameter is NoEcho: the parent passes it as a plain value.
      const template = {
        Resources: {
          Child: {
            Type: 'AWS::CloudFormation::Stack',
            Properties: { TemplateURL: url, Parameters: { Password: PASSWORD } },
          },
        },
      };
      const stack: SynthesizedStack = {
        artifactId: 'Parent',
        stackName: 'Parent',
        displayPath: 'Parent',
        displayName: 'Parent',
        topLevel: true,
        dependencies: [],
        dependencyNames: [],
        environment: {
          account: '123456789012',
          region: REGION,
          name: `aws://123456789012/${REGION}`,
          accountFromApp: false,
          regionFromApp: true,
        },
        template: template as SynthesizedStack['template'],
        templateFile: path.join(dir, 'Parent.template.json'),
        assemblyDirectory: dir,
        assetManifests: [{ artifactId: 'Parent.assets', file: manifest }],
        tags: {},
        terminationProtection: false,
        annotations: [],
      };
      await putOldRecord(
        record('Parent', {
          resources: {
            Child: {
              physicalId: `arn:aws:cloudformation:${REGION}:123456789012:stack/Parent~Child/id`,
              resourceType: 'AWS::CloudFormation::Stack',
              properties: { TemplateURL: url, Parameters: { Password: PASSWORD } },
              attributes: {},
            },
          },
        }),
      );
      await putOldRecord(
        record('Parent~Child', {
          parentStack: 'Parent',
          parentLogicalId: 'Child',
          parentRegion: REGION,
          resources: { Param: paramRecord },
        }),
      );

      const result = await scrubApp({
        stacks: [stack],
        store,
        factory: store.factory,
        schemas: SchemaStore.default(),
        dryRun: false,
        logger: createLogger(store.host),
      });
      expect(result.stacks.map((r) => [r.stackName, r.scrubbed, r.warnings])).toEqual([
        ['Parent', true, []],
        ['Parent~Child', true, []],
      ]);
      expect(
        (await store.backend.getState('Parent~Child', REGION))!.state.resources.Param.properties.Value,
      ).toBe('***');
      expect(await keysHolding(PASSWORD)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rewrites the rollback journal: completed, previous and failed operations, and its earlier versions', async () => {
    await putOldRecord(record('Journaled', { resources: { Param: paramRecord } }));
    const journalKey = store.journals.key('Journaled', REGION);
    const journal: RollbackJournal = {
      journalVersion: 1,
      stackName: 'Journaled',
      region: REGION,
      segments: [
        {
          timestamp: 1,
          reason: 'no-rollback-failure',
          initialDeploy: false,
          operations: [
            {
              logicalId: 'Param',
              changeType: 'UPDATE',
              resourceType: 'AWS::SSM::Parameter',
              physicalId: 'param-1',
              properties: { Type: 'String', Value: PASSWORD },
              previousState: { ...paramRecord, properties: { Type: 'String', Value: `old-${PASSWORD}` } },
            },
          ],
          failedOperations: [
            {
              logicalId: 'Other',
              changeType: 'CREATE',
              resourceType: 'AWS::SSM::Parameter',
              attemptedProperties: { Type: 'String', Value: PASSWORD, Description: 'kept' },
            },
          ],
        },
      ],
    };
    await putRaw(journalKey, journal);
    await putRaw(journalKey, journal);

    const [report] = await scrubStackTree(
      { stackName: 'Journaled', region: REGION, template: noEchoTemplate() },
      options(),
    );

    expect(
      report.sites
        .filter((s) => s.object === 'rollback journal')
        .map((s) => s.path)
        .sort(),
    ).toEqual([
      'segments[0].failedOperations[0].attemptedProperties.Value',
      'segments[0].operations[0].previousState.properties.Value',
      'segments[0].operations[0].properties.Value',
    ]);
    expect(await keysHolding(PASSWORD)).toEqual([]);
    const after = await readJson<RollbackJournal>(journalKey);
    const [segment] = after.segments;
    expect(segment.operations[0].properties).toEqual({ Type: 'String', Value: '***' });
    expect(segment.operations[0].previousState?.properties).toEqual({ Type: 'String', Value: 'old-***' });
    expect(segment.failedOperations?.[0].attemptedProperties).toEqual({
      Type: 'String',
      Value: '***',
      Description: 'kept',
    });
    // Only the journal's values changed: it is still the journal cdkd rollback replays.
    expect({ ...after, segments: [] }).toEqual({ ...journal, segments: [] });
    expect(segment.operations[0].physicalId).toBe('param-1');
  });

  it("rewrites the stack's exports-index entries and purges the index's earlier versions; other stacks' entries stay", async () => {
    const template = noEchoTemplate({
      Outputs: { Exported: { Value: { Ref: 'Pw' }, Export: { Name: 'shared-pw' } } },
    });
    await putOldRecord(
      record('Exporter', {
        resources: { Param: paramRecord },
        outputs: { Exported: PASSWORD, 'shared-pw': PASSWORD },
        exportNames: ['shared-pw'],
      }),
    );
    const indexKey = store.exportsIndex.key(REGION);
    const index = {
      indexVersion: 1,
      region: REGION,
      exports: {
        'shared-pw': { value: PASSWORD, producerStack: 'Exporter', producerRegion: REGION },
        'other-name': { value: 'other-value', producerStack: 'Other', producerRegion: REGION },
      },
      lastModified: 1,
    };
    await putRaw(indexKey, index);
    await putRaw(indexKey, index);

    const [report] = await scrubStackTree({ stackName: 'Exporter', region: REGION, template }, options());

    expect(report.sites).toContainEqual({ object: 'exports index', path: 'exports["shared-pw"]' });
    expect(report.noncurrentVersions).toContainEqual({ key: expect.stringContaining(indexKey), versions: 1 });
    expect(await keysHolding(PASSWORD)).toEqual([]);
    const after = await readJson<typeof index>(indexKey);
    expect(after.exports).toEqual({
      'shared-pw': { value: '***', producerStack: 'Exporter', producerRegion: REGION },
      'other-name': { value: 'other-value', producerStack: 'Other', producerRegion: REGION },
    });
    expect(report.plaintextKeys).toEqual([]);
  });

  it('a refused version delete only warns, names the two grants, and leaves the other keys purged', async () => {
    await putOldRecord(record('Denied', { resources: { Param: paramRecord } }));
    const stateKey = store.bucket.keys.stateKey('Denied', REGION);
    const journalKey = store.journals.key('Denied', REGION);
    const journal = {
      journalVersion: 1,
      stackName: 'Denied',
      region: REGION,
      segments: [
        {
          timestamp: 1,
          reason: 'interrupted',
          initialDeploy: false,
          operations: [],
          failedOperations: [
            {
              logicalId: 'Param',
              changeType: 'UPDATE',
              resourceType: 'AWS::SSM::Parameter',
              attemptedProperties: { Value: PASSWORD },
            },
          ],
        },
      ],
    };
    await putRaw(journalKey, journal);
    await putRaw(journalKey, journal);
    // A least-privilege policy without s3:DeleteObjectVersion, on the state record's key alone.
    await s3.send(
      new PutBucketPolicyCommand({
        Bucket: store.bucket.name,
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Deny',
              Principal: '*',
              Action: 's3:DeleteObjectVersion',
              Resource: `arn:aws:s3:::${store.bucket.name}/${stateKey}`,
            },
          ],
        }),
      }),
    );

    const [report] = await scrubStackTree(
      { stackName: 'Denied', region: REGION, template: noEchoTemplate() },
      options(),
    );

    expect(report.scrubbed).toBe(true);
    expect(report.purgeFailures).toEqual([stateKey]);
    const warnings = store.host.text('warn').filter((w) => w.includes('Could not purge'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${stateKey} (AccessDenied: s3:DeleteObjectVersion)`);
    expect(warnings[0]).toContain('Grant s3:ListBucketVersions and s3:DeleteObjectVersion');
    // The current record is masked; only the refused key's earlier versions survive, as the warning says.
    expect((await store.backend.getState('Denied', REGION))!.state.resources.Param.properties.Value).toBe(
      '***',
    );
    const holding = (await allVersions()).filter((v) => v.body.includes(PASSWORD));
    expect(holding.map((v) => [v.key, v.latest])).toEqual([
      [stateKey, false],
      [stateKey, false],
    ]);
    // The next dry run still reports them, so a CI gate keeps failing until they are purged.
    const [again] = await scrubStackTree(
      { stackName: 'Denied', region: REGION, template: noEchoTemplate() },
      options({ dryRun: true }),
    );
    expect(again.sites).toEqual([]);
    expect(again.noncurrentVersions).toEqual([{ key: store.bucket.uri(stateKey), versions: 2 }]);
    expect(needsScrub(again)).toBe(true);
  });
});
