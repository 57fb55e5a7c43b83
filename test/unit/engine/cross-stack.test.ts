/**
 * Cross-stack references against the emulator: exports served from the
 * producer's state (the index only a hint), the CloudFormation fallback,
 * recorded reads, and the consumer scan that guards a producer's destroy.
 */
import { StateCrossStackResolver, findImportingConsumers } from '../../../src/engine/cross-stack';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { StackState } from '../../../src/state/types';
import { SECRET_MASK, clearSecrets, redactSecrets } from '../../../src/template/redaction';
import { testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const where = { stackName: 'Consumer', region: REGION, logicalId: 'R', path: 'Properties.X' };

function producer(stackName: string, outputs: Record<string, unknown>, exportNames?: string[]): StackState {
  return {
    version: 9,
    stackName,
    region: REGION,
    resources: {},
    outputs,
    ...(exportNames ? { exportNames } : {}),
    lastModified: 1,
  };
}

describe('StateCrossStackResolver', () => {
  const ctx = useEmulator();
  let store: TestStore;

  beforeEach(async () => {
    await ctx.emulator.control.reset();
    store = await testStore(ctx.emulator);
  });

  it("serves an export from the producer's state and records the import", async () => {
    await store.backend.saveState(
      'Producer',
      REGION,
      producer('Producer', { BucketArn: 'arn:b', 'shared-bucket': 'arn:b' }, ['shared-bucket']),
    );
    const resolver = new StateCrossStackResolver(store, store.factory);
    await expect(resolver.importValue('shared-bucket', where)).resolves.toBe('arn:b');
    expect(resolver.recorded.imports).toEqual([
      { sourceStack: 'Producer', sourceRegion: REGION, exportName: 'shared-bucket' },
    ]);
    // A plain output is not an export once the record says which keys are.
    await expect(resolver.importValue('BucketArn', where)).rejects.toThrow(/Export "BucketArn" not found/);
  });

  it('does not trust a stale index entry: the state files decide', async () => {
    await store.backend.saveState('Old', REGION, producer('Old', {}, []));
    await store.backend.saveState('New', REGION, producer('New', { Name: 'from-new' }, ['Name']));
    await store.exportsIndex.patchEntry(REGION, 'Name', {
      value: 'stale',
      producerStack: 'Old',
      producerRegion: REGION,
    });
    const resolver = new StateCrossStackResolver(store, store.factory);
    await expect(resolver.importValue('Name', where)).resolves.toBe('from-new');
    expect((await store.exportsIndex.lookup(REGION, 'Name'))?.producerStack).toBe('New');
  });

  it('falls back to CloudFormation exports and outputs for producers still in CloudFormation', async () => {
    await ctx.emulator.control.seedStack({
      stackName: 'Legacy',
      outputs: [{ OutputKey: 'VpcId', OutputValue: 'vpc-123', ExportName: 'legacy-vpc' }],
    });
    const resolver = new StateCrossStackResolver(store, store.factory);
    await expect(resolver.importValue('legacy-vpc', where)).resolves.toBe('vpc-123');
    await expect(resolver.getStackOutput({ stackName: 'Legacy', outputName: 'VpcId' }, where)).resolves.toBe(
      'vpc-123',
    );
    // Neither is a cdkd producer: nothing to protect from destroy, nothing recorded.
    expect(resolver.recorded).toEqual({ imports: [], outputReads: [] });
  });

  it('reads a stack output from cdkd state and records the read', async () => {
    await store.backend.saveState('Producer', REGION, producer('Producer', { Url: 'https://x' }, []));
    const resolver = new StateCrossStackResolver(store, store.factory);
    await expect(resolver.getStackOutput({ stackName: 'Producer', outputName: 'Url' }, where)).resolves.toBe(
      'https://x',
    );
    expect(resolver.recorded.outputReads).toEqual([
      { sourceStack: 'Producer', sourceRegion: REGION, outputName: 'Url' },
    ]);
    await expect(
      resolver.getStackOutput({ stackName: 'Producer', outputName: 'Nope' }, where),
    ).rejects.toThrow(/Output Nope of stack Producer/);
  });

  it("reads a producer's secret reference in the producer's region for a consumer in another region", async () => {
    const client = (region: string) =>
      new SecretsManagerClient({
        region,
        endpoint: ctx.emulator.url,
        credentials: { accessKeyId: 'AKIASTATETEST0000001', secretAccessKey: 'state-test-secret' },
      });
    for (const [region, value] of [
      [REGION, 'east-value'],
      ['eu-west-1', 'west-value'],
    ] as const) {
      const sm = client(region);
      await sm.send(new CreateSecretCommand({ Name: 'shared/db', SecretString: value }));
      sm.destroy();
    }
    const reference = '{{resolve:secretsmanager:shared/db:SecretString:::}}';
    await store.backend.saveState('West', 'eu-west-1', {
      ...producer('West', { Password: `pw=${reference}` }, []),
      region: 'eu-west-1',
    });
    const resolver = new StateCrossStackResolver(store, store.factory);
    const value = await resolver.getStackOutput(
      { stackName: 'West', outputName: 'Password', region: 'eu-west-1' },
      where,
    );
    expect(value).toBe('pw=west-value');
    // Registered as a secret: masked wherever the consumer stores or prints it.
    expect(redactSecrets({ value })).toEqual({ value: `pw=${SECRET_MASK}` });
    // A consumer in the producer's region gets the reference as written (read at the call).
    await expect(
      resolver.getStackOutput(
        { stackName: 'West', outputName: 'Password', region: 'eu-west-1' },
        { ...where, region: 'eu-west-1' },
      ),
    ).resolves.toBe(`pw=${reference}`);
    clearSecrets();
  });

  it('finds the consumers that still import a producer', async () => {
    const p = producer('Producer', { X: 1, 'x-export': 1 }, ['x-export']);
    await store.backend.saveState('Producer', REGION, p);
    await store.backend.saveState('Consumer', REGION, {
      ...producer('Consumer', {}, []),
      imports: [{ sourceStack: 'Producer', sourceRegion: REGION, exportName: 'x-export' }],
    });
    await store.backend.saveState('Bystander', REGION, producer('Bystander', {}, []));
    expect(await findImportingConsumers(store, p, REGION)).toEqual([
      { stackName: 'Consumer', exportName: 'x-export' },
    ]);
  });
});
