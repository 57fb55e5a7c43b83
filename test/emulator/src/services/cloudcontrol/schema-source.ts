/** Where Cloud Control's schemas come from: a folder given by the caller (tests), else the spec. */
import { SchemaDirectory, type SchemaSource } from './schemas';
import { SpecSchemaSource } from './spec-schemas';

export { SchemaDirectory };

export function defaultSchemaSource(): SchemaSource {
  return new SpecSchemaSource();
}
