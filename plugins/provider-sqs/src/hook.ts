import type { ProvidersHook } from 'cdkd/plugin-api';

// Placeholder registration list; the providers are added in src/.
const hook: ProvidersHook = async function () {
  return { apiVersion: 1, name: '@cdkd/provider-sqs', providers: [] };
};

export default hook;
