/** What Cloud Control lends services that answer reads over resources they do not own (EC2's Describe* calls). */
export interface CloudControlResourcesApi {
  /** The models of every resource of a type in one account and region, whoever keeps them. */
  models(account: string, region: string, typeName: string): Record<string, unknown>[];
}
