/** Secrets Manager secrets with versions and staging labels, per account and region. */
import { AwsError } from '../../core/errors';
import type { ServiceStore } from '../../core/service';

export interface SecretVersion {
  versionId: string;
  secretString?: string;
  /** Base64. */
  secretBinary?: string;
  /** Base64 of the value encrypted under the secret's KMS key when the version was made. */
  ciphertext?: string;
  stages: string[];
  created: Date;
  /**
   * A version RotateSecret labelled AWSPENDING before the rotation function
   * put its value: listed, but it has no value until PutSecretValue with its id.
   */
  awaitingValue?: boolean;
}

/** A secret's rotation configuration (RotateSecret, CancelRotateSecret). */
export interface RotationConfig {
  enabled: boolean;
  lambdaArn?: string;
  rules?: { AutomaticallyAfterDays?: number; Duration?: string; ScheduleExpression?: string };
  lastRotated?: Date;
  nextRotation?: Date;
  /** Set by an AWS::SecretsManager::RotationSchedule: rotate again when the schedule is updated (default true). */
  rotateImmediatelyOnUpdate?: boolean;
}

export interface ReplicaStatus {
  region: string;
  kmsKeyId?: string;
  status: 'InSync' | 'Failed' | 'InProgress';
  statusMessage?: string;
}

export interface Secret {
  account: string;
  region: string;
  name: string;
  arn: string;
  description?: string;
  /** The key as the request named it; undefined for the AWS managed `aws/secretsmanager`. */
  kmsKeyId?: string;
  /** The partner type of an external secret (CreateSecret `Type`). */
  type?: string;
  tags: Array<{ Key: string; Value: string }>;
  /** The resource policy (JSON text). */
  policy?: string;
  created: Date;
  lastChanged: Date;
  /** Set while the secret waits for deletion. */
  deletedDate?: Date;
  /** A force-deleted secret whose name stays taken until then (the modelled deletion lag). */
  purgeAt?: Date;
  /** Oldest first; a replica keeps none (it reads its primary's). */
  versions: SecretVersion[];
  /** A replica: the region of its primary secret. */
  primaryRegion?: string;
  /** A primary: its replicas. */
  replicas: ReplicaStatus[];
  rotation?: RotationConfig;
}

export const secretErrors = {
  notFound: () =>
    new AwsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.", 400),
  markedForDeletion: () =>
    new AwsError(
      'InvalidRequestException',
      "You can't perform this operation on the secret because it was marked for deletion.",
      400,
    ),
  invalidParameter: (message: string) => new AwsError('InvalidParameterException', message, 400),
  invalidRequest: (message: string) => new AwsError('InvalidRequestException', message, 400),
};

export class SecretsStore implements ServiceStore {
  readonly secrets = new Map<string, Secret>();

  static key(account: string, region: string, name: string): string {
    return `${account}|${region}|${name}`;
  }

  /**
   * A secret by name, full ARN or partial ARN (without the 6-character
   * suffix); a force-deleted secret whose lag has passed is gone.
   */
  find(account: string, region: string, secretId: string): Secret | undefined {
    let found: Secret | undefined;
    if (secretId.startsWith('arn:')) {
      for (const s of this.secrets.values()) {
        if (s.account !== account || s.region !== region) continue;
        if (s.arn === secretId || s.arn.slice(0, -7) === secretId) found = s;
      }
    } else {
      found = this.secrets.get(SecretsStore.key(account, region, secretId));
    }
    if (found?.purgeAt && found.purgeAt.getTime() <= Date.now()) {
      this.remove(found);
      return undefined;
    }
    return found;
  }

  /** The secrets of an account and region, live (not purged) ones only. */
  list(account: string, region: string): Secret[] {
    return [...this.secrets.values()].filter(
      (s) => s.account === account && s.region === region && this.find(account, region, s.name) === s,
    );
  }

  add(secret: Secret): void {
    this.secrets.set(SecretsStore.key(secret.account, secret.region, secret.name), secret);
  }

  remove(secret: Secret): void {
    this.secrets.delete(SecretsStore.key(secret.account, secret.region, secret.name));
  }

  clear(): void {
    this.secrets.clear();
  }

  snapshot(): { secrets: unknown[] } {
    const iso = (d?: Date) => d?.toISOString();
    return {
      secrets: [...this.secrets.values()].map((s) => ({
        ...s,
        created: iso(s.created),
        lastChanged: iso(s.lastChanged),
        deletedDate: iso(s.deletedDate),
        purgeAt: iso(s.purgeAt),
        versions: s.versions.map((v) => ({ ...v, created: iso(v.created) })),
      })),
    };
  }

  restore(saved: unknown): void {
    const date = (v: unknown) => (typeof v === 'string' ? new Date(v) : undefined);
    for (const raw of (saved as { secrets?: Array<Record<string, unknown>> }).secrets ?? []) {
      const s = raw as unknown as Secret & Record<string, unknown>;
      this.add({
        ...s,
        created: date(raw.created)!,
        lastChanged: date(raw.lastChanged)!,
        deletedDate: date(raw.deletedDate),
        purgeAt: date(raw.purgeAt),
        replicas: s.replicas ?? [],
        versions: (s.versions ?? []).map((v) => ({ ...v, created: date(v.created as unknown)! })),
      });
    }
  }
}
