/**
 * The bootstrap marker, `cdkd-bootstrap/{region}.json` in the state bucket:
 * written by `cdkd bootstrap` (last, after the asset storage exists) and read by
 * every consumer of cdkd-owned asset storage. Consumers take the asset bucket and
 * container repository names from the marker, never from the naming convention.
 * Absent means the region did not opt in (legacy asset mode).
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { ConfigError } from '../util/errors';
import { BOOTSTRAP_MARKER_PREFIX, bootstrapMarkerKey } from './keys';
import { getObjectText, listKeys } from './state-backend';
import type { StateBucket } from './state-bucket';

export const BOOTSTRAP_MARKER_VERSION = 1;

/** The marker body (a contract with the asset publisher). */
export interface BootstrapMarker {
  version: number;
  region: string;
  /** The region's asset bucket, default `cdkd-assets-{account}-{region}`. */
  assetBucket: string;
  /** The region's container-asset ECR repository, default `cdkd-container-assets-{account}-{region}`. */
  containerRepository: string;
  /** ISO time the marker was first written. */
  createdAt: string;
}

export function defaultAssetBucketName(accountId: string, region: string): string {
  return `cdkd-assets-${accountId}-${region}`;
}

export function defaultContainerRepositoryName(accountId: string, region: string): string {
  return `cdkd-container-assets-${accountId}-${region}`;
}

/** The region's marker, or undefined when the region has not opted into cdkd asset storage. */
export async function readBootstrapMarker(
  stateBucket: StateBucket,
  region: string,
): Promise<BootstrapMarker | undefined> {
  const key = bootstrapMarkerKey(region);
  const obj = await getObjectText(await stateBucket.client(), stateBucket.name, key);
  if (!obj) return undefined;
  return parseBootstrapMarker(obj.body, stateBucket.uri(key));
}

/** Validates a marker body; a malformed marker is an error (never a silent fallback to legacy mode). */
export function parseBootstrapMarker(body: string, where: string): BootstrapMarker {
  const fail = (why: string): ConfigError =>
    new ConfigError(`Bootstrap marker ${where} is invalid: ${why}.`, {
      code: 'BOOTSTRAP_MARKER_INVALID',
      remedy: 'Re-run `cdkd bootstrap` for this region to rewrite it.',
    });
  let raw: Partial<BootstrapMarker>;
  try {
    raw = JSON.parse(body) as Partial<BootstrapMarker>;
  } catch (err) {
    throw fail(`not valid JSON (${(err as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null) throw fail('not a JSON object');
  if (typeof raw.version !== 'number' || raw.version > BOOTSTRAP_MARKER_VERSION) {
    throw fail(`unsupported marker version ${JSON.stringify(raw.version)}`);
  }
  for (const field of ['region', 'assetBucket', 'containerRepository'] as const) {
    if (typeof raw[field] !== 'string' || !raw[field]) throw fail(`'${field}' is missing`);
  }
  return raw as BootstrapMarker;
}

/** Writes a region's marker. */
export async function writeBootstrapMarker(stateBucket: StateBucket, marker: BootstrapMarker): Promise<void> {
  const client = await stateBucket.client();
  await client.send(
    new PutObjectCommand({
      Bucket: stateBucket.name,
      Key: bootstrapMarkerKey(marker.region),
      Body: JSON.stringify(marker, null, 2),
      ContentType: 'application/json',
    }),
  );
}

/** The regions that have a marker (opted into cdkd asset storage), sorted. */
export async function listBootstrappedRegions(stateBucket: StateBucket): Promise<string[]> {
  const keys = await listKeys(await stateBucket.client(), stateBucket.name, BOOTSTRAP_MARKER_PREFIX);
  return keys
    .map((k) => k.slice(BOOTSTRAP_MARKER_PREFIX.length))
    .filter((k) => k.endsWith('.json') && !k.includes('/'))
    .map((k) => k.slice(0, -'.json'.length))
    .sort();
}
