/** An SSM parameter seen as the CloudFormation resource `AWS::SSM::Parameter`. */
import { currentVersion, parameterArn, type Parameter } from './store';

export function parameterProperties(parameter: Parameter): Record<string, unknown> {
  const v = currentVersion(parameter);
  const props: Record<string, unknown> = {
    Name: parameter.name,
    Type: v.type,
    Value: v.value,
    Tier: v.tier,
    DataType: v.dataType,
    Arn: parameterArn(parameter),
  };
  if (v.description !== undefined) props.Description = v.description;
  if (v.allowedPattern !== undefined) props.AllowedPattern = v.allowedPattern;
  if (Object.keys(parameter.tags).length) props.Tags = { ...parameter.tags };
  return props;
}
