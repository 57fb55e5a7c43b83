// @ts-check
'use strict';
// The pack's cdkd:providers hook. cdkd calls it once per command that needs
// providers and validates what it returns against its resource schemas.

/** Every AWS::SSM::Parameter property this pack wires to the SSM API. */
const HANDLED_PROPERTIES = [
  'AllowedPattern',
  'DataType',
  'Description',
  'Name',
  'Policies',
  'Tags',
  'Tier',
  'Type',
  'Value',
];

/** @type {import('@cdkd/plugin-api').ProvidersHook} */
module.exports = async function cdkdProviders(options) {
  // options.apiVersions lists the plugin API versions this cdkd accepts.
  if (!options.apiVersions.includes(1)) {
    this.warn(
      `@acme/cdkd-provider-ssm-parameter speaks plugin API 1; this cdkd speaks ${options.apiVersions.join(', ')}`,
    );
  }
  return {
    apiVersion: 1,
    name: '@acme/cdkd-provider-ssm-parameter',
    providers: [
      {
        resourceType: 'AWS::SSM::Parameter',
        handledProperties: HANDLED_PROPERTIES,
        // The parameter name is the physical id, and Cloud Control's identifier of a parameter:
        // a parameter made through Cloud Control moves to this pack on its next change, and back.
        physicalIdIsPrimaryIdentifier: true,
        // Loaded only when a deploy needs it, so listing providers stays fast.
        createProvider: (ctx) => {
          const { SsmParameterProvider } = require('./ssm-parameter-provider');
          return new SsmParameterProvider(ctx);
        },
      },
    ],
  };
};
