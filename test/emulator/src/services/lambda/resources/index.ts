/** The Cloud Control types Lambda owns, each mapped onto the Lambda store. */
import type { ResourceProvider } from '../../../core/resources';
import type { LambdaParts } from './common';
import { FunctionProvider } from './function';
import {
  AliasProvider,
  EventInvokeConfigProvider,
  PermissionProvider,
  UrlProvider,
  VersionProvider,
} from './function-parts';
import { EventSourceMappingProvider, LayerVersionProvider } from './sources-and-layers';

export type { LambdaParts } from './common';

export function lambdaResourceProviders(parts: LambdaParts): ResourceProvider[] {
  return [
    new FunctionProvider(parts),
    new PermissionProvider(parts),
    new VersionProvider(parts),
    new AliasProvider(parts),
    new UrlProvider(parts),
    new EventSourceMappingProvider(parts),
    new LayerVersionProvider(parts),
    new EventInvokeConfigProvider(parts),
  ];
}
