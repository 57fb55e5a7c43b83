/** AWS::Events::EventBus: the properties this pack wires (no SDK here, for the hook). */
export const BUS_HANDLED_PROPERTIES = [
  'DeadLetterConfig',
  'Description',
  'EventSourceName',
  'KmsKeyIdentifier',
  'LogConfig',
  'Name',
  'Policy',
  'Tags',
];
