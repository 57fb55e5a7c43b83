/**
 * What Cloud Control lends services that answer for resources they do not
 * own (EC2's Describe* calls, and its native creates of the VPC types, kept
 * as Cloud Control's records so both APIs and the inventory see one resource).
 */
export interface CloudControlResourcesApi {
  /** The models of every resource of a type in one account and region, whoever keeps them. */
  models(account: string, region: string, typeName: string): Record<string, unknown>[];
  /**
   * Creates a resource of the type as Cloud Control's CreateResource would
   * (generated ids and read-only properties filled in); answers its identifier and model.
   */
  create(
    account: string,
    region: string,
    typeName: string,
    desired: Record<string, unknown>,
  ): { identifier: string; model: Record<string, unknown> };
  /** Deletes a resource by its Cloud Control identifier; false when there was none. */
  remove(account: string, region: string, typeName: string, identifier: string): boolean;
}
