/**
 * Parameter Store's rules for a new version that do not depend on the store:
 * tiers (Standard, Advanced, Intelligent-Tiering; no way back from Advanced),
 * parameter policies (Expiration, ExpirationNotification,
 * NoChangeNotification; advanced parameters only), data types, and version
 * labels.
 */
import { AwsError } from '../../core/errors';

export type Tier = 'Standard' | 'Advanced';

const TIERS = ['Standard', 'Advanced', 'Intelligent-Tiering'];
const STANDARD_LIMIT = 4096;
const ADVANCED_LIMIT = 8192;

const validation = (message: string) => new AwsError('ValidationException', message, 400);

/**
 * The tier a version gets. Without a tier, the default tier (Standard)
 * applies, except that an advanced parameter stays advanced; Intelligent-
 * Tiering picks Advanced only when the value or its policies need it.
 */
export function resolveTier(
  requested: string | undefined,
  previous: Tier | undefined,
  valueBytes: number,
  hasPolicies: boolean,
): Tier {
  if (requested !== undefined && !TIERS.includes(requested)) {
    throw validation(
      `1 validation error detected: Value '${requested}' at 'tier' failed to satisfy constraint: Member must satisfy enum value set: [Standard, Advanced, Intelligent-Tiering]`,
    );
  }
  let tier: Tier;
  if (requested === 'Intelligent-Tiering')
    tier = valueBytes > STANDARD_LIMIT || hasPolicies || previous === 'Advanced' ? 'Advanced' : 'Standard';
  else if (requested === undefined) tier = previous === 'Advanced' ? 'Advanced' : 'Standard';
  else tier = requested as Tier;
  if (previous === 'Advanced' && tier === 'Standard') {
    throw validation(
      "This parameter uses the advanced-parameter tier. You can't downgrade a parameter from the advanced-parameter tier to the standard-parameter tier. If necessary, you can delete the advanced parameter and recreate it as a standard parameter.",
    );
  }
  if (tier === 'Standard' && valueBytes > STANDARD_LIMIT) {
    throw validation(
      'Standard tier parameters support a maximum parameter value of 4096 characters. To create a larger parameter value, upgrade the parameter to use the advanced-parameter tier.',
    );
  }
  if (tier === 'Advanced' && valueBytes > ADVANCED_LIMIT) {
    throw validation('Advanced tier parameters support a maximum parameter value of 8192 characters.');
  }
  if (tier === 'Standard' && hasPolicies) {
    throw validation(
      "Standard tier parameters don't support parameter policies. To use parameter policies, upgrade the parameter to the advanced-parameter tier.",
    );
  }
  return tier;
}

const POLICY_TYPES = ['Expiration', 'ExpirationNotification', 'NoChangeNotification'];
const UNITS = ['Days', 'Hours'];

const attributeError = (message: string) => new AwsError('InvalidPolicyAttributeException', message, 400);

/**
 * The policies of a `Policies` input (a JSON array), each as the JSON text
 * DescribeParameters returns; an empty array means none.
 */
export function parsePolicies(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AwsError('InvalidPolicyTypeException', 'The policies are not a valid JSON array.', 400);
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length > 10)
    throw new AwsError('PoliciesLimitExceededException', 'A parameter can have at most 10 policies.', 400);
  const seen = new Set<string>();
  return list.map((policy: unknown) => {
    const p = (policy ?? {}) as { Type?: unknown; Version?: unknown; Attributes?: Record<string, unknown> };
    if (typeof p.Type !== 'string' || !POLICY_TYPES.includes(p.Type)) {
      throw new AwsError(
        'InvalidPolicyTypeException',
        `The policy type ${String(p.Type)} is not supported. Parameter Store supports the following policy types: Expiration, ExpirationNotification, and NoChangeNotification.`,
        400,
      );
    }
    if (seen.has(p.Type))
      throw new AwsError(
        'IncompatiblePolicyException',
        `A parameter can have only one ${p.Type} policy.`,
        400,
      );
    seen.add(p.Type);
    const attributes = p.Attributes ?? {};
    if (p.Type === 'Expiration') {
      if (typeof attributes.Timestamp !== 'string' || Number.isNaN(Date.parse(attributes.Timestamp)))
        throw attributeError('An Expiration policy needs a Timestamp attribute in ISO 8601 format.');
    } else {
      const amount = p.Type === 'ExpirationNotification' ? attributes.Before : attributes.After;
      const name = p.Type === 'ExpirationNotification' ? 'Before' : 'After';
      if (typeof amount !== 'string' || !/^\d+$/.test(amount))
        throw attributeError(`A ${p.Type} policy needs a ${name} attribute (a whole number as a string).`);
      if (typeof attributes.Unit !== 'string' || !UNITS.includes(attributes.Unit))
        throw attributeError(`A ${p.Type} policy needs a Unit attribute: Days or Hours.`);
    }
    return JSON.stringify(policy);
  });
}

const DATA_TYPES = ['text', 'aws:ec2:image', 'aws:ssm:integration'];

/** A String parameter's data type; `aws:ec2:image` values must be AMI ids. */
export function validateDataType(dataType: string, type: string, value: string): void {
  if (!DATA_TYPES.includes(dataType)) {
    throw validation(
      `The following data type is not supported: ${dataType} (Data type names are all lowercase.)`,
    );
  }
  if (
    dataType !== 'text' &&
    type !== 'String' &&
    !(dataType === 'aws:ssm:integration' && type === 'SecureString')
  ) {
    throw validation(`The data type ${dataType} is supported only for String parameters.`);
  }
  if (dataType === 'aws:ec2:image' && !/^ami-([0-9a-f]{8}|[0-9a-f]{17})$/.test(value)) {
    throw validation(
      `Invalid AMI ID format: ${value}. The value of an aws:ec2:image parameter must be an AMI ID such as ami-12345abcdeEXAMPLE.`,
    );
  }
}

/**
 * Whether a version label is valid: up to 100 characters of letters,
 * numbers, `.`, `-` and `_`, not starting with a number or with `aws` / `ssm`.
 */
export function isValidLabel(label: string): boolean {
  return (
    label.length >= 1 &&
    label.length <= 100 &&
    /^[A-Za-z0-9._-]+$/.test(label) &&
    !/^\d/.test(label) &&
    !/^(aws|ssm)/i.test(label)
  );
}
