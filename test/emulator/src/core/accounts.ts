/**
 * Who is calling. Any access key is accepted and acts in the default account,
 * except keys handed out by STS AssumeRole (they act as the role's account)
 * and 12-digit keys (they act in that account, a shortcut for tests).
 */
import { upperAlnum } from './ids';

export const DEFAULT_ACCOUNT = '123456789012';

export interface Principal {
  account: string;
  arn: string;
  userId: string;
}

export interface IssuedCredentials extends Principal {
  accessKeyId: string;
  expiration: string;
}

export class AccountRegistry {
  private readonly issued = new Map<string, IssuedCredentials>();

  constructor(public defaultAccount: string = DEFAULT_ACCOUNT) {}

  /** The principal an access key acts as. */
  resolve(accessKeyId: string): Principal {
    const issued = this.issued.get(accessKeyId);
    if (issued) return issued;
    if (/^\d{12}$/.test(accessKeyId)) return rootPrincipal(accessKeyId);
    return rootPrincipal(this.defaultAccount);
  }

  /** Remembers temporary credentials (AssumeRole) so later requests act as the role. */
  register(credentials: IssuedCredentials): void {
    this.issued.set(credentials.accessKeyId, credentials);
  }

  clear(): void {
    this.issued.clear();
  }

  snapshot(): IssuedCredentials[] {
    return [...this.issued.values()];
  }

  restore(list: IssuedCredentials[]): void {
    for (const c of list) this.issued.set(c.accessKeyId, c);
  }
}

function rootPrincipal(account: string): Principal {
  return { account, arn: `arn:aws:iam::${account}:root`, userId: account };
}

/** A temporary access key id (`ASIA...`). */
export function temporaryAccessKeyId(): string {
  return `ASIA${upperAlnum(16)}`;
}

/** The partition a region belongs to (`aws`, `aws-cn`, `aws-us-gov`). */
export function partitionOf(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}
