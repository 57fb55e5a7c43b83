/**
 * The emulator's own source of resource schemas. Until the spec-backed
 * source lands this reads the repository's `schemas/` folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SchemaDirectory, type SchemaSource } from './schemas';

export { SchemaDirectory };

export function defaultSchemaSource(): SchemaSource {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if (
          (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === '@cdkd/aws-emulator'
        )
          return new SchemaDirectory(path.resolve(dir, '../../schemas'));
      } catch {
        // keep looking
      }
    }
    dir = path.dirname(dir);
  }
  return new SchemaDirectory(path.resolve(__dirname, '../../../../../schemas'));
}
