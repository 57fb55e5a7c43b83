/**
 * Types in AWS's CloudFormation catalogue that Cloud Control cannot provision:
 * CloudFormation runs them itself (their registry entries are
 * NON_PROVISIONABLE, so Cloud Control answers UnsupportedActionException).
 * Having a schema does not make a type provisionable: the registry never
 * routes these to Cloud Control (cdkd runs custom resources itself, and the
 * engine deploys nested stacks as child stacks).
 */
export const CLOUD_CONTROL_CANNOT_PROVISION: ReadonlySet<string> = new Set([
  'AWS::CloudFormation::CustomResource',
  'AWS::CloudFormation::Stack',
]);
