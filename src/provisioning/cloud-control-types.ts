/**
 * Types in AWS's CloudFormation catalogue that Cloud Control cannot provision:
 * CloudFormation runs them itself (their registry entries are
 * NON_PROVISIONABLE, so Cloud Control answers UnsupportedActionException).
 * Having a schema does not make a type provisionable; these are refused up
 * front unless something in cdkd runs them (custom resources do; nested stacks
 * need their own provider).
 */
export const CLOUD_CONTROL_CANNOT_PROVISION: ReadonlySet<string> = new Set([
  'AWS::CloudFormation::CustomResource',
  'AWS::CloudFormation::Stack',
]);
