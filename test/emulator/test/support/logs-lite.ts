/**
 * A test-only CloudWatch Logs service (awsJson1_1 on the Logs model) that
 * owns `AWS::Logs::LogGroup` through a ResourceProvider: the shape a service
 * engineer follows. A log group made by CreateLogGroup is the one Cloud
 * Control reads, and the reverse; both are in the inventory and in
 * `--state-dir` snapshots.
 */
import {
  alreadyExists,
  AwsError,
  AwsJsonCodec,
  notFound,
  type InventoryItem,
  type ResourceProvider,
  type ResourceScope,
  type ServiceModule,
  type ServiceStore,
  type StoredResource,
} from '../../src/index';

interface LogGroup {
  account: string;
  region: string;
  name: string;
  retentionInDays?: number;
  created: Date;
}

class LogsStore implements ServiceStore {
  readonly groups = new Map<string, LogGroup>();
  static key = (account: string, region: string, name: string) => `${account}|${region}|${name}`;
  clear() {
    this.groups.clear();
  }
  snapshot() {
    return { groups: [...this.groups.values()].map((g) => ({ ...g, created: g.created.toISOString() })) };
  }
  restore(saved: unknown) {
    for (const g of (saved as { groups: Array<LogGroup & { created: string }> }).groups)
      this.groups.set(LogsStore.key(g.account, g.region, g.name), { ...g, created: new Date(g.created) });
  }
  create(account: string, region: string, name: string, retentionInDays?: number): LogGroup {
    const key = LogsStore.key(account, region, name);
    if (this.groups.has(key))
      throw new AwsError('ResourceAlreadyExistsException', 'The specified log group already exists');
    const group = { account, region, name, retentionInDays, created: new Date() };
    this.groups.set(key, group);
    return group;
  }
}

const arn = (g: LogGroup) => `arn:aws:logs:${g.region}:${g.account}:log-group:${g.name}:*`;
const model = (g: LogGroup) => ({
  LogGroupName: g.name,
  Arn: arn(g),
  ...(g.retentionInDays !== undefined ? { RetentionInDays: g.retentionInDays } : {}),
});

class LogGroupProvider implements ResourceProvider {
  readonly typeName = 'AWS::Logs::LogGroup';
  constructor(private readonly store: LogsStore) {}
  private find(scope: ResourceScope, name: string) {
    return this.store.groups.get(LogsStore.key(scope.account, scope.region, name));
  }
  create(scope: ResourceScope, _schema: unknown, desired: Record<string, unknown>): StoredResource {
    const name = String(desired.LogGroupName ?? `LogGroup-${Date.now()}`);
    if (this.find(scope, name)) throw alreadyExists(this.typeName, name);
    const g = this.store.create(
      scope.account,
      scope.region,
      name,
      desired.RetentionInDays as number | undefined,
    );
    return { identifier: name, model: model(g) };
  }
  read(scope: ResourceScope, _schema: unknown, identifier: string) {
    const g = this.find(scope, identifier);
    return g ? { identifier, model: model(g) } : undefined;
  }
  update(scope: ResourceScope, _schema: unknown, identifier: string, desired: Record<string, unknown>) {
    const g = this.find(scope, identifier);
    if (!g) throw notFound(this.typeName, identifier);
    g.retentionInDays = desired.RetentionInDays as number | undefined;
    return { identifier, model: model(g) };
  }
  delete(scope: ResourceScope, _schema: unknown, identifier: string) {
    if (!this.store.groups.delete(LogsStore.key(scope.account, scope.region, identifier)))
      throw notFound(this.typeName, identifier);
  }
  list(scope: ResourceScope) {
    return [...this.store.groups.values()]
      .filter((g) => g.account === scope.account && g.region === scope.region)
      .map((g) => ({ identifier: g.name, model: model(g) }));
  }
  inventory(): InventoryItem[] {
    return [...this.store.groups.values()].map((g) => ({
      account: g.account,
      region: g.region,
      type: this.typeName,
      identifier: g.name,
      properties: model(g),
    }));
  }
}

export const logsLite: ServiceModule = {
  name: 'logs',
  signingNames: ['logs'],
  create() {
    const store = new LogsStore();
    return {
      protocol: new AwsJsonCodec({
        version: '1.1',
        targetPrefix: 'Logs_20140328',
        namespace: 'com.amazonaws.cloudwatchlogs',
        model: () => require('@aws-sdk/client-cloudwatch-logs') as Record<string, unknown>,
      }),
      operations: {
        CreateLogGroup: (ctx, input: { logGroupName: string }) => {
          store.create(ctx.account, ctx.region, input.logGroupName);
          return {};
        },
        DescribeLogGroups: (ctx, input: { logGroupNamePrefix?: string }) => ({
          logGroups: [...store.groups.values()]
            .filter((g) => g.account === ctx.account && g.region === ctx.region)
            .filter((g) => g.name.startsWith(input.logGroupNamePrefix ?? ''))
            .map((g) => ({
              logGroupName: g.name,
              arn: arn(g),
              creationTime: g.created.getTime(),
              retentionInDays: g.retentionInDays,
            })),
        }),
      },
      store,
      resources: [new LogGroupProvider(store)],
      latency: {
        operations: { '*': 40, CreateLogGroup: 60 },
        resourceTypes: { 'AWS::Logs::LogGroup': { create: 2500 } },
        sources: ['test figures'],
      },
      faultModes: {
        // A service's own fault mode: the call takes effect twice (a duplicate delivery).
        twice: async (call) => {
          await call.run();
          return { response: await call.run() };
        },
      },
    };
  },
};
