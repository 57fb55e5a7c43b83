/**
 * `cdkd scrub` over the selected stacks: each stack's secrets are learned from
 * its synthesized template and redacted from what an earlier binary stored
 * (src/engine/scrub-stack.ts), and so are its nested-stack children's, each
 * from the template its parent's record names (the cloud assembly's file of
 * that key first, else the object in S3). Stacks are scrubbed one at a time; a
 * stack that fails stops the run with its error (the ones before it stay
 * scrubbed).
 */
import type { AwsClientFactory } from '../config/aws-clients';
import type { SchemaStore } from '../provisioning/schema-store';
import type { StateStore } from '../state/state-store';
import type { SynthesizedStack } from '../synth/cloud-assembly';
import { findDynamicReferences, readDynamicReference } from '../template/dynamic-references';
import { parseTemplate } from '../template/types';
import type { Logger } from '../util/io-host';
import { assertStackAccounts, stackRegion } from './deploy-app';
import { stackResolverEnv } from './resolver-env';
import { assemblyTemplateFiles, nestedTemplateSource } from './nested-template';
import { needsScrub, scrubStackTree } from './scrub-stack';
import type { StackScrubReport } from './scrub-stack';

export interface ScrubAppOptions {
  stacks: readonly SynthesizedStack[];
  store: StateStore;
  factory: AwsClientFactory;
  schemas: SchemaStore;
  /** Attribute names a resource type always holds a secret in (the packs' `secretAttributes`). */
  secretAttributes?: (resourceType: string) => readonly string[];
  dryRun: boolean;
  logger: Logger;
}

export interface ScrubAppResult {
  stacks: StackScrubReport[];
  /** Some stack has a value or an earlier version to scrub. */
  needsScrub: boolean;
  /** Output keys holding a secret, over every stack: counted apart from what was scrubbed. */
  plaintextKeys: number;
}

/** A schema's write-only properties that are top-level properties (`/properties/Password`). */
function topLevelWriteOnly(schemas: SchemaStore, type: string): string[] {
  return (schemas.tryGet(type)?.writeOnlyProperties ?? [])
    .map((p) => /^\/properties\/([^/]+)$/.exec(p)?.[1])
    .filter((n): n is string => n !== undefined);
}

export async function scrubApp(options: ScrubAppOptions): Promise<ScrubAppResult> {
  const { stacks, store, factory, schemas } = options;
  await assertStackAccounts(stacks, factory);
  const reports: StackScrubReport[] = [];
  for (const stack of stacks) {
    const region = stackRegion(stack, factory);
    const env = stackResolverEnv({ stackName: stack.stackName, region, factory, parameterValues: {} });
    const templates = nestedTemplateSource({
      factory,
      region,
      // A deploy rewrites only asset storage names, which hold no secret: the template is read as synthesized.
      replacements: [],
      localFiles: assemblyTemplateFiles(stack.assetManifests),
    });
    reports.push(
      ...(await scrubStackTree(
        {
          stackName: stack.stackName,
          region,
          template: parseTemplate(stack.template, `template of ${stack.displayPath}`),
        },
        {
          store,
          dryRun: options.dryRun,
          logger: options.logger,
          writeOnly: (type) => topLevelWriteOnly(schemas, type),
          secretAttributes: options.secretAttributes,
          nestedTemplate: templates,
          readReference: async (reference) => {
            const [ref] = findDynamicReferences(reference);
            return readDynamicReference(ref, {
              ssmParameter: env.ssmParameter,
              secretValue: env.secretValue,
            });
          },
        },
      )),
    );
  }
  return {
    stacks: reports,
    needsScrub: reports.some(needsScrub),
    plaintextKeys: reports.reduce((n, r) => n + r.plaintextKeys.length, 0),
  };
}
