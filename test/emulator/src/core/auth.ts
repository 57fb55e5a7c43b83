/**
 * Reading the SigV4 credential scope of a request. The emulator accepts any
 * access key and does not verify signatures: the scope only tells who is
 * calling (access key → account), which service and which region.
 */
import { header, type EmulatorRequest } from './http';

export interface RequestAuth {
  accessKeyId: string;
  /** `yyyymmdd` of the credential scope. */
  date: string;
  region: string;
  /** Signing name from the scope: `s3`, `sts`, `cloudcontrolapi`, ... */
  signingService: string;
  /** True for a pre-signed URL (credential in the query string). */
  presigned: boolean;
  /** For pre-signed URLs: when the URL stops working. */
  expiresAt?: Date;
}

const CREDENTIAL = /Credential=([^,\s]+)/;

function parseScope(credential: string): Omit<RequestAuth, 'presigned'> | undefined {
  const parts = credential.split('/');
  if (parts.length < 5) return undefined;
  // The access key cannot contain '/', so the last four parts are the scope.
  const [date, region, signingService] = parts.slice(-4);
  return {
    accessKeyId: parts.slice(0, -4).join('/'),
    date: date!,
    region: region!,
    signingService: signingService!,
  };
}

/** Parses `X-Amz-Date` (`20240101T000000Z`). */
export function parseAmzDate(text: string | undefined | null): Date | undefined {
  if (!text) return undefined;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return undefined;
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

/** The credential scope of a signed or pre-signed request, or undefined when unsigned. */
export function parseAuth(req: EmulatorRequest): RequestAuth | undefined {
  const authorization = header(req, 'authorization');
  if (authorization) {
    const m = CREDENTIAL.exec(authorization);
    const scope = m ? parseScope(decodeURIComponent(m[1]!)) : undefined;
    return scope ? { ...scope, presigned: false } : undefined;
  }
  const credential = req.query.get('X-Amz-Credential');
  if (credential) {
    const scope = parseScope(credential);
    if (!scope) return undefined;
    const signedAt = parseAmzDate(req.query.get('X-Amz-Date'));
    const expires = Number(req.query.get('X-Amz-Expires') ?? '900');
    const expiresAt = signedAt ? new Date(signedAt.getTime() + expires * 1000) : undefined;
    return { ...scope, presigned: true, expiresAt };
  }
  return undefined;
}
