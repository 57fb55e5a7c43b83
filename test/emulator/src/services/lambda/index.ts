/**
 * AWS Lambda (restJson1): functions from S3 or uploaded zips, their
 * configuration, versions, aliases, permissions, URLs, event source mappings,
 * layers and asynchronous invocation settings — and Invoke, which runs
 * Node.js and Python handlers in child processes that call back into the
 * emulator. Shared with Cloud Control's `AWS::Lambda::*` types.
 */
import { badRequest } from '../../control/routes';
import { jsonResponse } from '../../core/http';
import { RestJsonCodec } from '../../core/protocols/rest-json';
import type { Operations, ServiceModule } from '../../core/service';
import { AliasHandlers } from './aliases';
import { DEFAULT_SETTINGS, LambdaContext } from './context';
import { EventSourceHandlers } from './event-sources';
import { FunctionSettingHandlers } from './function-settings';
import { FunctionHandlers } from './functions';
import { InvokeHandlers, type InvokeOutcome, type TaskInvocation } from './invoke';
import { InvokeConfigHandlers } from './invoke-config';
import { lambdaLatency } from './latency';
import { LayerHandlers } from './layers';
import { FunctionLogs } from './logs';
import { PermissionHandlers, type ServiceInvoker } from './permissions';
import { lambdaResourceProviders } from './resources';
import { RolePropagation } from './role-propagation';
import { LambdaRuntime } from './runtime/runtime';
import { LambdaStore } from './store';
import { TagHandlers } from './tags';
import { UrlHandlers } from './urls';

/** What other services and tests may use (`platform.api('lambda')`). */
export interface LambdaApi {
  /** Resolves when no asynchronous (Event) invocation is running. */
  idle(): Promise<void>;
  /**
   * An asynchronous (Event) invocation by another service (SNS, EventBridge):
   * accepted and run in the background, or refused with the reason when the
   * function does not exist or its resource policy does not allow the service
   * principal `lambda:InvokeFunction` (with the call's `AWS:SourceArn` and `AWS:SourceAccount`).
   */
  invokeAsync(functionArn: string, payload: string, invoker: ServiceInvoker): Promise<InvokeOutcome>;
  /**
   * A synchronous (RequestResponse) invocation by a service acting with its own
   * role (a Step Functions Task): the handler's result or error payload.
   */
  invokeAsTask(functionArn: string, payload: string): Promise<TaskInvocation>;
}

/** Every operation notes the address its caller used, for handlers run on other services' behalf. */
function noteEndpoint(context: LambdaContext, operations: Operations): Operations {
  return Object.fromEntries(
    Object.entries(operations).map(([name, handler]) => [
      name,
      (ctx, input) => {
        context.endpointUrl = ctx.baseUrl;
        return handler(ctx, input);
      },
    ]),
  ) as Operations;
}

export type { TaskInvocation } from './invoke';

export const lambda: ServiceModule = {
  name: 'lambda',
  signingNames: ['lambda'],
  create(platform) {
    const store = new LambdaStore();
    const context = new LambdaContext(store, platform);
    const roles = new RolePropagation(platform);
    const runtime = new LambdaRuntime(platform.accounts, {
      zip: (sha) => context.code.get(sha),
      layerSha: (arn) => {
        const [, , , region, account, , name, version] = arn.split(':');
        return store.getLayer(account!, region!, name!)?.versions[version!]?.CodeSha256;
      },
    });
    store.onClear = () => {
      runtime.reset();
      roles.clear();
    };
    const logs = new FunctionLogs(store, platform);
    const functions = new FunctionHandlers(context, roles);
    const eventSources = new EventSourceHandlers(context);
    const invoke = new InvokeHandlers(context, runtime, logs);
    return {
      protocol: new RestJsonCodec({
        model: () => require('@aws-sdk/client-lambda') as Record<string, unknown>,
        faults: {
          429: { code: 'TooManyRequestsException', status: 429 },
          500: { code: 'ServiceException', status: 500 },
          503: { code: 'ServiceException', status: 503 },
        },
      }),
      operations: noteEndpoint(context, {
        ...functions.operations,
        ...new PermissionHandlers(context).operations,
        ...new AliasHandlers(context).operations,
        ...new UrlHandlers(context).operations,
        ...eventSources.operations,
        ...new LayerHandlers(context).operations,
        ...new InvokeConfigHandlers(context).operations,
        ...new FunctionSettingHandlers(context).operations,
        ...new TagHandlers(context).operations,
        ...invoke.operations,
      }),
      store,
      resources: lambdaResourceProviders({ context, functions, eventSources }),
      latency: lambdaLatency,
      api: {
        idle: () => invoke.idle(),
        invokeAsync: (functionArn, payload, invoker) => invoke.invokeAsService(functionArn, payload, invoker),
        invokeAsTask: (functionArn, payload) => invoke.invokeAsTask(functionArn, payload),
      } satisfies LambdaApi,
      settings: {
        read: () => ({ lambdaStateTransitionMs: context.settings.stateTransitionMs }),
        update: ({ lambdaStateTransitionMs }) => {
          if (lambdaStateTransitionMs === undefined) return;
          if (typeof lambdaStateTransitionMs !== 'number' || lambdaStateTransitionMs < 0)
            throw badRequest('"lambdaStateTransitionMs" is a number >= 0');
          context.setTransitionMs(lambdaStateTransitionMs);
        },
        reset: () => Object.assign(context.settings, DEFAULT_SETTINGS),
      },
      control(router) {
        // GetFunction's Code.Location and GetLayerVersion's Content.Location: the package itself.
        router.add('GET', /^\/_emulator\/lambda\/code\/([^/]+)$/, (_req, [sha]) => {
          const zip = context.code.get(sha!);
          if (!zip) return jsonResponse(404, { error: 'NotFound', message: 'no such package' });
          return { status: 200, headers: { 'content-type': 'application/zip' }, body: zip };
        });
        // Waits until no asynchronous (Event) invocation is running.
        router.add('POST', /^\/_emulator\/lambda\/invocations\/wait$/, async () => {
          await invoke.idle();
          return jsonResponse(200, { idle: true });
        });
        // A function's log events, while no CloudWatch Logs service keeps them.
        router.add('GET', /^\/_emulator\/lambda\/logs$/, (req) => {
          const group =
            req.query.get('logGroupName') ??
            (req.query.get('function') ? `/aws/lambda/${req.query.get('function')}` : undefined);
          if (!group) throw badRequest('name the log group: ?logGroupName=... or ?function=<name>');
          return jsonResponse(
            200,
            logs.read(
              req.query.get('account') ?? platform.accounts.defaultAccount,
              req.query.get('region') ?? 'us-east-1',
              group,
            ),
          );
        });
      },
      stop: () => runtime.stop(),
    };
  },
};
