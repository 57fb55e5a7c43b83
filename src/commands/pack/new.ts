import * as fs from 'node:fs';
import * as path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { CdkdCommand } from '../../cli/base-command';
import { defaultPackDir, scaffoldPack } from '../../packs/scaffold';
import { SchemaStore } from '../../provisioning/schema-store';
import { CdkdError } from '../../util/errors';

export interface PackNewResult {
  name: string;
  resourceType: string;
  dir: string;
  files: string[];
}

export default class PackNew extends CdkdCommand {
  static override summary = 'Create a new TypeScript provider pack, with its tests';

  static override description = `Writes a pack that builds against @cdkd/plugin-api (types only, from your registry) and tests itself with Node's test runner: package.json with the cdkd:providers hook, src/hook.ts, a provider skeleton, and, for a type outside AWS's catalogue (the default, <Scope>::<Name>::Resource), a starter schema. Then: npm install && npm test, cdkd plugins link . and cdkd providers check.`;

  static override examples = [
    '<%= config.bin %> pack new @acme/cdkd-provider-widgets',
    '<%= config.bin %> pack new @acme/cdkd-provider-billing --type Acme::Billing::Account',
    '<%= config.bin %> pack new @acme/cdkd-provider-queues --type AWS::SQS::Queue --dir packs/queues',
  ];

  static override enableJsonFlag = true;

  static override args = {
    name: Args.string({ description: 'npm package name of the pack', required: true }),
  };

  static override flags = {
    type: Flags.string({
      description: 'Resource type it provisions (default: <Scope>::<Name>::Resource, an org-internal type)',
    }),
    dir: Flags.string({ description: 'Folder to create (default: the name without its scope)' }),
  };

  async run(): Promise<PackNewResult> {
    const { args, flags } = await this.parse(PackNew);
    const dir = path.resolve(flags.dir ?? defaultPackDir(args.name));
    if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
      throw new CdkdError(`${dir} exists and is not empty; nothing was written.`, {
        code: 'PACK_DIR_EXISTS',
        remedy: 'Choose another folder with --dir, or remove this one.',
      });
    }
    const catalogued = flags.type !== undefined && SchemaStore.default().isCatalogued(flags.type);
    if (flags.type?.startsWith('AWS::') && !catalogued) {
      throw new CdkdError(`${flags.type} is not a type in AWS's CloudFormation catalogue that cdkd knows.`, {
        code: 'INVALID_RESOURCE_TYPE',
        remedy:
          'Check the spelling (AWS::Service::Resource), or name an org-internal type (Acme::Billing::Account).',
      });
    }
    const pluginApiVersion = (require('@cdkd/plugin-api/package.json') as { version: string }).version;
    const { resourceType, files } = scaffoldPack({
      name: args.name,
      resourceType: flags.type,
      catalogued,
      pluginApiVersion,
    });
    for (const [file, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), content);
    }
    if (!this.jsonEnabled()) {
      this.log(`Created ${args.name} (${resourceType}) in ${dir}:`);
      for (const file of Object.keys(files).sort()) this.log(`  ${file}`);
      this.log(`Next: cd ${path.relative(process.cwd(), dir) || '.'} && npm install && npm test`);
    }
    return { name: args.name, resourceType, dir, files: Object.keys(files).sort() };
  }
}
