/**
 * AWS IAM (awsQuery): roles, users, groups, inline and managed policies,
 * instance profiles, access keys and OpenID Connect providers, shared with
 * Cloud Control's `AWS::IAM::*` types. IAM is global: resources are kept per
 * account whatever the region a request is signed for (AWS signs IAM for
 * us-east-1; a client pointed at the emulator signs for its own region).
 */
import { badRequest, body } from '../../control/routes';
import { AwsError } from '../../core/errors';
import { jsonResponse } from '../../core/http';
import { AwsQueryCodec } from '../../core/protocols/aws-query';
import type { ServiceModule } from '../../core/service';
import { accessKeyOperations } from './access-keys';
import { awsManagedPolicy } from './aws-managed';
import { instanceProfileOperations } from './instance-profiles';
import { iamLatency } from './latency';
import { managedPolicyOperations } from './managed-policies';
import { oidcProviderOperations } from './oidc-providers';
import { validatePolicyDocument } from './policy-document';
import { PRINCIPAL_KINDS, principalPolicyOperations } from './principal-policies';
import { GroupProvider, RoleProvider, UserProvider } from './resources/principals';
import { InlinePolicyProvider, ManagedPolicyProvider, PolicyConstructProvider } from './resources/policies';
import {
  AccessKeyProvider,
  InstanceProfileProvider,
  OidcProviderProvider,
  UserToGroupAdditionProvider,
} from './resources/others';
import { roleOperations } from './roles';
import { IamStore, nameKey, type Role } from './store';
import { userGroupOperations } from './users-groups';
import { checkName, checkPath } from './validate';

/** What other services read of IAM (`platform.api<IamApi>('iam')`), e.g. STS and Lambda checking a role. */
export interface IamApi {
  /** The role an ARN names, when it exists in its account. */
  roleByArn(arn: string): Role | undefined;
}

const ROLE_ARN = /^arn:aws[a-z-]*:iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]+)$/;

export const iam: ServiceModule = {
  name: 'iam',
  signingNames: ['iam'],
  create() {
    const store = new IamStore();
    const api: IamApi = {
      roleByArn(arn) {
        const m = ROLE_ARN.exec(arn);
        return m ? store.accounts[m[1]!]?.roles[nameKey(m[2]!)] : undefined;
      },
    };
    return {
      protocol: new AwsQueryCodec({
        version: '2010-05-08',
        xmlns: 'https://iam.amazonaws.com/doc/2010-05-08/',
        model: () => require('@aws-sdk/client-iam') as Record<string, unknown>,
        unknownOperation: (action) =>
          new AwsError('InvalidAction', `Could not find operation ${action} for version 2010-05-08`, 400),
      }),
      operations: {
        ...roleOperations(store),
        ...userGroupOperations(store),
        ...principalPolicyOperations(store),
        ...managedPolicyOperations(store),
        ...instanceProfileOperations(store),
        ...accessKeyOperations(store),
        ...oidcProviderOperations(store),
      },
      store,
      resources: [
        new RoleProvider(store),
        new UserProvider(store),
        new GroupProvider(store),
        new ManagedPolicyProvider(store),
        ...PRINCIPAL_KINDS.map((kind) => new InlinePolicyProvider(store, kind)),
        new PolicyConstructProvider(store),
        new InstanceProfileProvider(store),
        new AccessKeyProvider(store),
        new OidcProviderProvider(store),
        new UserToGroupAdditionProvider(store),
      ],
      latency: iamLatency,
      api,
      control(router) {
        // AWS managed policies beyond the built-in set, for apps that attach others.
        router.add('POST', /^\/_emulator\/iam\/aws-managed-policies$/, (req) => {
          const seed = body(req) as {
            name?: unknown;
            path?: unknown;
            description?: unknown;
            document?: unknown;
          };
          if (typeof seed.name !== 'string')
            throw badRequest('an AWS managed policy needs "name" (a string)');
          const document = seed.document ?? {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
          };
          try {
            checkName(seed.name, 'name', 128);
            const path = checkPath(seed.path);
            validatePolicyDocument(JSON.stringify(document), 'identity');
            const policy = awsManagedPolicy(
              seed.name,
              path,
              typeof seed.description === 'string' ? seed.description : undefined,
              document,
            );
            store.addAwsManaged(policy);
            return jsonResponse(201, { arn: policy.arn });
          } catch (err) {
            if (err instanceof AwsError) throw badRequest(err.message);
            throw err;
          }
        });
      },
    };
  },
};
