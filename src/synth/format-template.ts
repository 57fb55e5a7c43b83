/**
 * Templates as `cdkd synth` prints them: YAML the way the CDK CLI writes it
 * (YAML 1.1 scalars, long strings never folded) or indented JSON.
 */
import type * as YamlModule from 'yaml';
import type { CloudFormationTemplate } from './cloud-assembly';

export type TemplateFormat = 'yaml' | 'json';

export function formatTemplate(template: CloudFormationTemplate, format: TemplateFormat): string {
  if (format === 'json') return JSON.stringify(template, undefined, 2);
  const YAML = require('yaml') as typeof YamlModule;
  // yaml-1.1 quotes strings such as "yes" or "on" that YAML 1.1 readers (CloudFormation among them) take for booleans.
  return YAML.stringify(template, { schema: 'yaml-1.1', lineWidth: 0 });
}
