/**
 * `AWS::SecretsManager::RotationSchedule` (identifier: the secret's ARN, as
 * its Ref): the rotation configuration of a secret in Secrets Manager's own
 * store, so a schedule made through Cloud Control turns the secret's rotation
 * on (DescribeSecret shows it) and a rotation turned on with RotateSecret is a
 * schedule Cloud Control reads. As CloudFormation's handler does, create
 * records the rules and Lambda function and starts the first rotation unless
 * `RotateImmediatelyOnUpdate` is false; update does the same with the new
 * configuration; delete cancels rotation. The rotation itself runs after the
 * request has answered, as RotateSecret's does on AWS.
 */
import { uuid } from '../../core/ids';
import {
  alreadyExists,
  HandlerError,
  inventoryItems,
  notFound,
  serviceFailure,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { ResourceSchema } from '../../core/resource-schema';
import type { InventoryItem } from '../../core/service';
import type { SecretRotation } from './rotation';
import type { SecretsManagement } from './secrets';
import type { Secret } from './store';

function scheduleOf(secret: Secret): StoredResource {
  const r = secret.rotation!;
  const model: Record<string, unknown> = { Id: secret.arn, SecretId: secret.arn };
  if (r.lambdaArn !== undefined) model.RotationLambdaARN = r.lambdaArn;
  if (r.rules !== undefined) model.RotationRules = { ...r.rules };
  if (r.rotateImmediatelyOnUpdate !== undefined)
    model.RotateImmediatelyOnUpdate = r.rotateImmediatelyOnUpdate;
  return { identifier: secret.arn, model };
}

const scheduled = (s: Secret) =>
  !s.deletedDate && s.primaryRegion === undefined && s.rotation?.enabled === true;

export class RotationScheduleProvider implements ResourceProvider {
  readonly typeName = 'AWS::SecretsManager::RotationSchedule';

  constructor(
    private readonly secrets: SecretsManagement,
    private readonly rotation: SecretRotation,
  ) {}

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.secrets.store.secrets.values(), (s) =>
      scheduled(s) ? scheduleOf(s) : undefined,
    );
  }

  private scheduledSecret(scope: ResourceScope, identifier: string): Secret | undefined {
    const secret = this.secrets.store.find(scope.account, scope.region, identifier);
    return secret && scheduled(secret) ? secret : undefined;
  }

  /** Records the configuration, then starts a rotation unless told not to. */
  private apply(scope: ResourceScope, secretId: string, desired: Record<string, unknown>): StoredResource {
    if (desired.HostedRotationLambda !== undefined)
      throw new HandlerError(
        'InvalidRequest',
        'HostedRotationLambda needs the AWS::SecretsManager transform, which deploys a rotation function from the Serverless Application Repository; give RotationLambdaARN instead.',
      );
    if (typeof desired.RotationLambdaARN !== 'string')
      throw new HandlerError('InvalidRequest', 'RotationLambdaARN or HostedRotationLambda is required.');
    try {
      const { secret, lambdaArn, before } = this.rotation.configure(scope, secretId, {
        lambdaArn: desired.RotationLambdaARN,
        rules: desired.RotationRules,
      });
      const immediately = desired.RotateImmediatelyOnUpdate as boolean | undefined;
      secret.rotation!.rotateImmediatelyOnUpdate = immediately;
      if (immediately !== false)
        // A rotation that fails leaves the secret as RotateSecret's would; the schedule stays.
        void this.rotation.runSteps(secret, lambdaArn, uuid(), before).catch(() => undefined);
      return scheduleOf(secret);
    } catch (err) {
      throw serviceFailure(err, 'SecretsManager');
    }
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const secretId = String(desired.SecretId);
    const secret = this.secrets.store.find(scope.account, scope.region, secretId);
    if (secret && scheduled(secret)) throw alreadyExists(schema.typeName, secret.arn);
    return this.apply(scope, secretId, desired);
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const secret = this.scheduledSecret(scope, identifier);
    return secret ? scheduleOf(secret) : undefined;
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const secret = this.scheduledSecret(scope, identifier);
    if (!secret) throw notFound(schema.typeName, identifier);
    return this.apply(scope, secret.arn, desired);
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const secret = this.scheduledSecret(scope, identifier);
    if (!secret) throw notFound(schema.typeName, identifier);
    this.rotation.cancelRotation(scope, secret.arn);
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.secrets.store.list(scope.account, scope.region).filter(scheduled).map(scheduleOf);
  }
}
