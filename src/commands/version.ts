import { Command } from '@oclif/core';

export default class Version extends Command {
  static override description = 'Print the cdkd version';
  static override enableJsonFlag = true;

  async run(): Promise<{ version: string; node: string }> {
    const result = { version: this.config.version, node: process.version };
    this.log(`cdkd ${result.version} (node ${result.node})`);
    return result;
  }
}
