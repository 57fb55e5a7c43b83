import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { propertyCoverage } from '../../../src/provisioning/property-coverage';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import hook, { PACK_NAME, s3ProviderPack } from '../src/hook';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const PACK_DIST = path.resolve(__dirname, '..', 'dist', 'hook.js');

/**
 * The properties a template may set that this pack does not wire: such a bucket
 * goes to Cloud Control rather than losing the setting. Listed here so a new
 * schema property (or a newly wired one) is a deliberate change of this list.
 */
const TO_CLOUD_CONTROL = [
  'AbacStatus',
  'AccelerateConfiguration',
  'AccessControl',
  'AnalyticsConfigurations',
  'BucketNamePrefix',
  'BucketNamespace',
  'IntelligentTieringConfigurations',
  'InventoryConfigurations',
  'LoggingConfiguration',
  'MetadataConfiguration',
  'MetadataTableConfiguration',
  'MetricsConfigurations',
  'NotificationConfiguration',
  'ObjectLockConfiguration',
  'ObjectLockEnabled',
  'ReplicationConfiguration',
];

describe('@cdkd/provider-s3 registration', () => {
  const schemas = SchemaStore.default();
  const registry = ProviderRegistry.fromPacks(
    [{ pluginName: PACK_NAME, pluginType: 'core', result: s3ProviderPack() }],
    schemas,
  );

  it('is accepted by the registry', () => {
    expect(registry.problems).toEqual([]);
    expect(registry.registrations().map((r) => r.resourceType)).toEqual([
      'AWS::S3::Bucket',
      'AWS::S3::BucketPolicy',
    ]);
  });

  it('accounts for every writable property of AWS::S3::BucketPolicy', () => {
    const coverage = propertyCoverage(registry.registrationFor('AWS::S3::BucketPolicy')!, schemas);
    expect(coverage.counts.unaccounted).toBe(0);
    expect(coverage.counts.handled).toBe(schemas.writablePropertyNames('AWS::S3::BucketPolicy').length);
  });

  it('accounts for every bucket property: handled, or left to Cloud Control by design with its reason', () => {
    const coverage = propertyCoverage(registry.registrationFor('AWS::S3::Bucket')!, schemas);
    expect(coverage.counts.unaccounted).toBe(0);
    const toCloudControl = coverage.properties.filter((p) => p.status === 'cloud-control');
    expect(toCloudControl.map((p) => p.property).sort()).toEqual(TO_CLOUD_CONTROL);
    for (const p of toCloudControl) expect(p.rationale).toMatch(/Cloud Control/);
    expect(coverage.counts.handled + toCloudControl.length).toBe(
      schemas.writablePropertyNames('AWS::S3::Bucket').length,
    );
  });

  it('routes a bucket to the pack, and one setting an unwired property to Cloud Control', () => {
    const plain = registry.providerFor('AWS::S3::Bucket', {
      BucketName: 'b',
      VersioningConfiguration: { Status: 'Enabled' },
    });
    expect(plain.route).toBe('sdk');
    const logged = registry.providerFor('AWS::S3::Bucket', {
      LoggingConfiguration: { DestinationBucketName: 'logs' },
    });
    expect(logged.route).toBe('cc-api');
    expect(logged.reason).toBe(
      'the template sets LoggingConfiguration, which @cdkd/provider-s3 leaves to Cloud Control by design (server access logging: not wired (PutBucketLogging); Cloud Control applies it)',
    );
  });

  it('is what the hook returns', async () => {
    const result = await (hook as unknown as () => Promise<unknown>)();
    expect(JSON.stringify(result)).toBe(JSON.stringify(s3ProviderPack()));
  });
});

// These run the built pack and CLI (`npm run build`, which `npm test` runs first).
describe('@cdkd/provider-s3 as built', () => {
  it('loads no AWS SDK until a provider is created', () => {
    const script = `
      const loaded = () => Object.keys(require.cache).some((p) => p.includes('@aws-sdk/client-s3'));
      const hook = require(${JSON.stringify(PACK_DIST)}).default;
      hook().then((pack) => {
        const before = loaded();
        pack.providers[0].createProvider({});
        console.log(JSON.stringify({ before, after: loaded() }));
      });`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ before: false, after: true });
  });

  it('is 100 % accounted for by `cdkd providers check --pack`', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-s3-check-'));
    try {
      const r = spawnSync(
        process.execPath,
        [path.join(ROOT, 'bin', 'run.js'), 'providers', 'check', '--pack', PACK_NAME, '--json'],
        {
          cwd: ROOT,
          encoding: 'utf8',
          env: {
            ...process.env,
            XDG_DATA_HOME: path.join(home, 'data'),
            XDG_CONFIG_HOME: path.join(home, 'config'),
            XDG_CACHE_HOME: path.join(home, 'cache'),
          },
        },
      );
      expect(r.status).toBe(0);
      const result = JSON.parse(r.stdout) as {
        ok: boolean;
        coverage: {
          resourceType: string;
          counts: Record<string, number>;
          properties: { property: string; status: string }[];
        }[];
      };
      expect(result.ok).toBe(true);
      expect(result.coverage.map((c) => c.resourceType)).toEqual([
        'AWS::S3::Bucket',
        'AWS::S3::BucketPolicy',
      ]);
      const [bucket, policy] = result.coverage;
      expect(bucket!.counts).toEqual(
        expect.objectContaining({ handled: 9, 'by-design': 0, 'cloud-control': 16, unaccounted: 0 }),
      );
      expect(
        bucket!.properties
          .filter((p) => p.status === 'cloud-control')
          .map((p) => p.property)
          .sort(),
      ).toEqual(TO_CLOUD_CONTROL);
      expect(policy!.counts).toEqual(expect.objectContaining({ handled: 2, unaccounted: 0 }));
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
