/**
 * Where a nested stack's `TemplateURL` points: the S3 bucket and key, read from
 * the URL forms S3 serves (path style `https://s3.<region>.amazonaws.com/<bucket>/<key>`,
 * the legacy `s3-<region>` and global `s3.amazonaws.com` hosts, virtual-hosted
 * `https://<bucket>.s3.<region>.amazonaws.com/<key>`, China's `amazonaws.com.cn`)
 * and `s3://<bucket>/<key>`. CloudFormation accepts only S3 locations there.
 */

export interface S3Location {
  bucket: string;
  key: string;
  /** The region the host names, when it names one. */
  region?: string;
}

const S3_HOST =
  /^(?:(?<bucket>.+)\.)?s3(?:[.-](?:dualstack\.)?(?<region>[a-z]{2}(?:-[a-z]+)+-\d+))?\.amazonaws\.com(?:\.cn)?$/;

/** The bucket and key of an S3 URL; undefined for anything else. */
export function parseS3Url(url: string): S3Location | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol === 's3:') {
    const key = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    return parsed.hostname && key ? { bucket: parsed.hostname, key } : undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  const host = S3_HOST.exec(parsed.hostname.toLowerCase());
  if (!host) return undefined;
  const region = host.groups?.region;
  const path = parsed.pathname.replace(/^\//, '');
  if (host.groups?.bucket) {
    const key = decodeURIComponent(path);
    return key ? { bucket: host.groups.bucket, key, ...(region ? { region } : {}) } : undefined;
  }
  const slash = path.indexOf('/');
  if (slash <= 0 || slash === path.length - 1) return undefined;
  return {
    bucket: decodeURIComponent(path.slice(0, slash)),
    key: decodeURIComponent(path.slice(slash + 1)),
    ...(region ? { region } : {}),
  };
}
