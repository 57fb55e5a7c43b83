/** Asset publishing: file, directory and image assets, to cdkd-owned or CDK bootstrap storage. */
export type { AssetMode, CdkdAssetStorage, CdkBootstrapAssetStorage } from './asset-mode';
export { prepareStackAssets } from './prepare';
export type { PlannedAsset, PreparedStackAssets, AssetType } from './prepare';
export { publishAssets, publishStackAssets, ASSET_PROGRESS_CODE, DEFAULT_ASSET_CONCURRENCY } from './publish';
export type {
  PublishAssetsOptions,
  PublishAssetsResult,
  AssetTarget,
  AssetOutcome,
  AssetStatus,
  AssetProgressData,
} from './publish';
export { rewriteStorageNames, replaceNames } from './template-rewrite';
export type { NameReplacement } from './template-rewrite';
export { CdkAssetsAws } from './aws-adapter';
