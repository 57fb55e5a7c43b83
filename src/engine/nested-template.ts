/**
 * What a nested stack's child is given: its `Parameters` as strings, and its
 * template, read from where its `TemplateURL` points, with
 * the top-level stack's storage-name rewrite applied (the assets of every
 * level share the top-level stack's asset manifest).
 *
 * Two sources: the cloud assembly on disk (aws-cdk-lib writes each nested
 * template there as a file asset, keyed by its content hash, the object key of
 * its URL), which planning prefers: `cdkd diff` publishes nothing, and a
 * deploy's plan needs no S3 read; and S3, which the deploy itself reads (a
 * settle of an old intent deploys the template that intent named).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import type { AwsClientFactory } from '../config/aws-clients';
import { rewriteStorageNames } from '../assets/template-rewrite';
import type { NameReplacement } from '../assets/template-rewrite';
import { getObjectText } from '../state/state-backend';
import type { StackAssetManifest } from '../synth/cloud-assembly';
import { parseS3Url } from '../template/template-url';
import type { S3Location } from '../template/template-url';
import { applyStackTags } from '../template/stack-tags';
import type { TaggingInfo } from '../template/stack-tags';
import { parseTemplate } from '../template/types';
import type { CfnTemplate } from '../template/types';
import { CdkdError, formatError } from '../util/errors';

/**
 * Reads the template a nested stack's `TemplateURL` names, with `tags` (the
 * child's stack tags, {@link childStackTags}) on its taggable resources as
 * CloudFormation propagates them; `childName` is for messages.
 */
export type NestedTemplateSource = (
  templateUrl: unknown,
  childName: string,
  tags?: Readonly<Record<string, string>>,
) => Promise<CfnTemplate>;

/**
 * A child stack's tags, as CloudFormation gives them: the parent stack's tags
 * (stack tags propagate down the tree) and the nested stack's own `Tags`
 * property, which it propagates to the resources of the child; its own win.
 * An entry that is not a literal `{Key, Value}` pair of strings is left out.
 */
export function childStackTags(
  parentTags: Readonly<Record<string, string>>,
  tagsProperty: unknown,
): Record<string, string> {
  const tags: Record<string, string> = { ...parentTags };
  if (Array.isArray(tagsProperty)) {
    for (const t of tagsProperty as Array<Record<string, unknown>>) {
      if (t && typeof t.Key === 'string' && (typeof t.Value === 'string' || typeof t.Value === 'number'))
        tags[t.Key] = String(t.Value);
    }
  }
  return tags;
}

/** Local files of the JSON file assets in `manifests`, by object key (what a TemplateURL ends in). */
export function assemblyTemplateFiles(manifests: readonly StackAssetManifest[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const { file } of manifests) {
    let schema: {
      files?: Record<
        string,
        {
          source?: { path?: string; packaging?: string };
          destinations?: Record<string, { objectKey?: string }>;
        }
      >;
    };
    try {
      schema = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof schema;
    } catch {
      continue; // publishing reads the manifest too, and names the problem
    }
    for (const asset of Object.values(schema.files ?? {})) {
      const source = asset.source?.path;
      if (!source || asset.source?.packaging === 'zip' || !source.endsWith('.json')) continue;
      for (const d of Object.values(asset.destinations ?? {})) {
        if (d.objectKey) files.set(d.objectKey, path.resolve(path.dirname(file), source));
      }
    }
  }
  return files;
}

export interface NestedTemplateSourceOptions {
  factory: AwsClientFactory;
  /** The region a URL naming none is read in. */
  region: string;
  replacements: readonly NameReplacement[];
  /** Files of the cloud assembly by object key ({@link assemblyTemplateFiles}); read before S3. */
  localFiles?: ReadonlyMap<string, string>;
  /** How a type is tagged (its schema), for the child's stack tags. */
  taggingOf?: (resourceType: string) => TaggingInfo | undefined;
}

export function nestedTemplateSource(options: NestedTemplateSourceOptions): NestedTemplateSource {
  return async (templateUrl, childName, tags = {}) => {
    const location = typeof templateUrl === 'string' ? parseS3Url(templateUrl) : undefined;
    if (!location) {
      throw new CdkdError(
        `Nested stack ${childName}: TemplateURL ${JSON.stringify(templateUrl)} is not an S3 URL of a template.`,
        {
          code: 'INVALID_TEMPLATE',
          remedy:
            'Give the AWS::CloudFormation::Stack a TemplateURL naming an S3 object (aws-cdk-lib NestedStack does).',
        },
      );
    }
    const local = options.localFiles?.get(location.key);
    const body =
      local !== undefined && fs.existsSync(local)
        ? fs.readFileSync(local, 'utf8')
        : await readFromS3(options, location, childName);
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch (err) {
      throw new CdkdError(
        `Nested stack ${childName}: its template s3://${location.bucket}/${location.key} is not JSON (${formatError(err)}).`,
        {
          code: 'INVALID_TEMPLATE',
          remedy: 'cdkd reads JSON nested-stack templates, as aws-cdk-lib writes them.',
        },
      );
    }
    const rewritten = rewriteStorageNames(raw as Record<string, unknown>, options.replacements);
    const tagged = options.taggingOf
      ? applyStackTags(rewritten, tags, options.taggingOf).template
      : rewritten;
    return parseTemplate(tagged, `template of nested stack ${childName}`);
  };
}

async function readFromS3(
  options: NestedTemplateSourceOptions,
  location: S3Location,
  childName: string,
): Promise<string> {
  const s3 = options.factory.get(S3Client, { region: location.region ?? options.region });
  const object = await getObjectText(s3, location.bucket, location.key);
  if (!object) {
    throw new CdkdError(
      `Nested stack ${childName}: its template s3://${location.bucket}/${location.key} does not exist.`,
      {
        code: 'INVALID_TEMPLATE',
        remedy: 'Deploy from the app again so its nested-stack templates are published.',
      },
    );
  }
  return object.body;
}

/** The nested stack's `Parameters`, as the strings CloudFormation passes. */
export function parameterValues(parameters: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  if (parameters && typeof parameters === 'object' && !Array.isArray(parameters)) {
    for (const [name, value] of Object.entries(parameters)) {
      if (value === undefined || value === null) continue;
      values[name] = Array.isArray(value) ? value.join(',') : String(value);
    }
  }
  return values;
}
