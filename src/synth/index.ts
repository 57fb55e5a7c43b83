/** Synthesis: CDK app -> cloud assembly -> selected stacks. */
export { synthesize, defaultEnvironmentOf } from './synthesize';
export type { SynthesizeOptions } from './synthesize';
export {
  SynthesizedAssembly,
  readStacks,
  readAssembly,
  resolveEnvironment,
  UNKNOWN_ACCOUNT,
  UNKNOWN_REGION,
  STACK_SELECTION_CODE,
} from './cloud-assembly';
export type {
  SynthesizedStack,
  StackEnvironment,
  StackAssetManifest,
  CloudFormationTemplate,
  DefaultEnvironment,
} from './cloud-assembly';
export { selectStacks, patternMatches, globToRegExp } from './stack-selection';
export type { SelectableStack, StackSelector, StackSelection } from './stack-selection';
export {
  reportAnnotations,
  readValidationReport,
  ANNOTATION_CODE,
  VALIDATION_REPORT_FILE,
} from './annotations';
export type { StackAnnotation, AnnotationLevel, AnnotationMessageData } from './annotations';
export { TOOLKIT_MESSAGE_CODE } from './toolkit-io-host';
export type { ToolkitMessageData } from './toolkit-io-host';
