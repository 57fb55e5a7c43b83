/**
 * Write-only properties of common resource types, as the CloudFormation
 * registry's resource schemas declare them (`writeOnlyProperties`, see
 * `aws cloudformation describe-type --type RESOURCE --type-name <type>`).
 * `@aws-cdk/aws-service-spec` does not carry them, so the emulator keeps its
 * own list: a read through Cloud Control never returns these.
 */
export const WRITE_ONLY_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  'AWS::SecretsManager::Secret': ['/properties/SecretString', '/properties/GenerateSecretString'],
  'AWS::SSM::Parameter': [
    '/properties/Tags',
    '/properties/Description',
    '/properties/Tier',
    '/properties/AllowedPattern',
    '/properties/Policies',
  ],
  'AWS::IAM::User': ['/properties/LoginProfile/Password'],
  'AWS::Lambda::Function': ['/properties/Code', '/properties/SnapStart'],
  'AWS::Lambda::LayerVersion': ['/properties/Content'],
  'AWS::RDS::DBInstance': ['/properties/MasterUserPassword', '/properties/TdeCredentialPassword'],
  'AWS::RDS::DBCluster': ['/properties/MasterUserPassword'],
  'AWS::DocDB::DBCluster': ['/properties/MasterUserPassword'],
  'AWS::Redshift::Cluster': ['/properties/MasterUserPassword'],
  'AWS::ElastiCache::User': ['/properties/Passwords'],
  'AWS::S3::Bucket': ['/properties/AccessControl'],
  'AWS::KMS::Key': [
    '/properties/BypassPolicyLockoutSafetyCheck',
    '/properties/PendingWindowInDays',
    '/properties/RotationPeriodInDays',
  ],
  'AWS::StepFunctions::StateMachine': [
    '/properties/Definition',
    '/properties/DefinitionS3Location',
    '/properties/DefinitionSubstitutions',
  ],
  'AWS::OpenSearchService::Domain': ['/properties/AdvancedSecurityOptions/MasterUserOptions'],
};
