/**
 * Where a stack's assets go. The engine picks the mode per (account, region)
 * from the `cdkd-bootstrap/{region}.json` marker in the state bucket; this
 * module never reads the marker itself.
 */

/** The region opted into cdkd-owned asset storage (its bootstrap marker exists). */
export interface CdkdAssetStorage {
  mode: 'cdkd';
  /** The region's cdkd asset bucket, as the marker names it. */
  assetBucket: string;
  /** The region's cdkd container-asset ECR repository, as the marker names it. */
  containerRepository?: string;
}

/** No marker: publish to the CDK bootstrap destinations the asset manifest names, assuming its roles. */
export interface CdkBootstrapAssetStorage {
  mode: 'cdk-bootstrap';
}

export type AssetMode = CdkdAssetStorage | CdkBootstrapAssetStorage;
