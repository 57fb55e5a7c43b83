/**
 * IAM OpenID Connect identity providers (the `iam.OpenIdConnectProvider`
 * custom resource and `AWS::IAM::OIDCProvider`). As the API reference
 * documents, deleting a provider that does not exist, adding a client id that
 * is registered and removing one that is not all succeed.
 */
import { AwsError } from '../../core/errors';
import type { Operations } from '../../core/service';
import { noSuchEntity, now } from './entities';
import type { AccountIam, IamStore, OidcProvider } from './store';
import {
  checkTags,
  date,
  mergeTags,
  paginate,
  removeTags,
  required,
  validationError,
  type Input,
} from './validate';

const THUMBPRINT = /^[0-9A-Fa-f]{40}$/;

function checkUrl(value: string): string {
  if (value.length > 255)
    throw validationError('url', value, 'Member must have length less than or equal to 255');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AwsError('InvalidInput', `Invalid URL: ${value}`);
  }
  if (url.protocol !== 'https:') throw new AwsError('InvalidInput', 'The URL must begin with https://');
  if (url.search || url.hash)
    throw new AwsError('InvalidInput', 'The URL cannot contain a query or a fragment.');
  return `${url.host}${url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')}`;
}

function checkThumbprints(value: unknown): string[] {
  const list = (value as string[] | undefined) ?? [];
  if (list.length > 5)
    throw validationError('thumbprintList', list, 'Member must have length less than or equal to 5');
  for (const t of list)
    if (!THUMBPRINT.test(t))
      throw validationError(
        'thumbprintList.member',
        t,
        'Member must have length greater than or equal to 40',
      );
  return [...list];
}

function checkClientIds(value: unknown): string[] {
  const list = (value as string[] | undefined) ?? [];
  for (const id of list)
    if (id.length < 1 || id.length > 255)
      throw validationError('clientIDList.member', id, 'Member must have length less than or equal to 255');
  return [...new Set(list)];
}

export function getOidcProvider(iam: AccountIam, arn: string): OidcProvider {
  const provider = iam.oidcProviders[arn];
  if (!provider) throw noSuchEntity(`OpenIDConnect Provider not found for arn ${arn}`);
  return provider;
}

export function createOidcProvider(
  store: IamStore,
  account: string,
  input: { Url: string; ClientIDList?: unknown; ThumbprintList?: unknown; Tags?: unknown },
): OidcProvider {
  const iam = store.account(account);
  const url = checkUrl(input.Url);
  const arn = `arn:aws:iam::${account}:oidc-provider/${url}`;
  const clientIds = checkClientIds(input.ClientIDList);
  const thumbprints = checkThumbprints(input.ThumbprintList);
  const tags = checkTags(input.Tags);
  if (iam.oidcProviders[arn])
    throw new AwsError('EntityAlreadyExists', `Provider with url https://${url} already exists.`);
  const provider: OidcProvider = { arn, url, clientIds, thumbprints, tags, created: now() };
  iam.oidcProviders[arn] = provider;
  return provider;
}

export function oidcProviderOperations(store: IamStore): Operations {
  const providerOf = (account: string, input: Input) =>
    getOidcProvider(store.account(account), required(input, 'OpenIDConnectProviderArn'));
  return {
    CreateOpenIDConnectProvider: (ctx, input: Input) => {
      const provider = createOidcProvider(store, ctx.account, {
        Url: required(input, 'Url'),
        ClientIDList: input.ClientIDList,
        ThumbprintList: input.ThumbprintList,
        Tags: input.Tags,
      });
      return {
        OpenIDConnectProviderArn: provider.arn,
        Tags: provider.tags.length ? provider.tags : undefined,
      };
    },
    GetOpenIDConnectProvider: (ctx, input: Input) => {
      const provider = providerOf(ctx.account, input);
      return {
        Url: provider.url,
        ClientIDList: provider.clientIds,
        ThumbprintList: provider.thumbprints,
        CreateDate: date(provider.created),
        Tags: provider.tags.length ? provider.tags : undefined,
      };
    },
    DeleteOpenIDConnectProvider: (ctx, input: Input) => {
      delete store.account(ctx.account).oidcProviders[required(input, 'OpenIDConnectProviderArn')];
      return {};
    },
    ListOpenIDConnectProviders: (ctx) => ({
      OpenIDConnectProviderList: Object.keys(store.account(ctx.account).oidcProviders)
        .sort()
        .map((Arn) => ({ Arn })),
    }),
    UpdateOpenIDConnectProviderThumbprint: (ctx, input: Input) => {
      const provider = providerOf(ctx.account, input);
      provider.thumbprints = checkThumbprints(input.ThumbprintList);
      return {};
    },
    AddClientIDToOpenIDConnectProvider: (ctx, input: Input) => {
      const provider = providerOf(ctx.account, input);
      const [id] = checkClientIds([required(input, 'ClientID')]);
      if (!provider.clientIds.includes(id!)) provider.clientIds.push(id!);
      return {};
    },
    RemoveClientIDFromOpenIDConnectProvider: (ctx, input: Input) => {
      const provider = providerOf(ctx.account, input);
      const id = required(input, 'ClientID');
      provider.clientIds = provider.clientIds.filter((c) => c !== id);
      return {};
    },
    TagOpenIDConnectProvider: (ctx, input: Input) => {
      const provider = providerOf(ctx.account, input);
      provider.tags = mergeTags(provider.tags, checkTags(input.Tags, provider.tags));
      return {};
    },
    UntagOpenIDConnectProvider: (ctx, input: Input) => {
      const provider = providerOf(ctx.account, input);
      provider.tags = removeTags(provider.tags, input.TagKeys);
      return {};
    },
    ListOpenIDConnectProviderTags: (ctx, input: Input) => {
      const page = paginate(providerOf(ctx.account, input).tags, input);
      return { Tags: page.items, IsTruncated: page.IsTruncated, Marker: page.Marker };
    },
  };
}
