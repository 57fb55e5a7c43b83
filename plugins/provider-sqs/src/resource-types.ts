/** The CloudFormation types this pack provisions. */
export const QUEUE_TYPE = 'AWS::SQS::Queue';
export const QUEUE_POLICY_TYPE = 'AWS::SQS::QueuePolicy';
