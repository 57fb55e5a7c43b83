/**
 * `Fn::GetAtt` of an attribute a resource's record lacks — one that appears only
 * after create, such as a VPC's `Ipv6CidrBlocks` once a `VPCCidrBlock` is
 * attached — read from the resource itself and recorded, so the next reads
 * (and the next deploy) find it in state.
 */
import type { ResourceState } from '../state/types';
import type { ResolverEnvironment } from '../template/environment';
import type { ResourceProvisioner } from './provisioner';

export interface LiveAttributeOptions {
  provisioner: ResourceProvisioner;
  region: string;
  /** The current record of a resource of the stack. */
  record: (logicalId: string) => ResourceState | undefined;
  /** Called with each attribute read, to record it. */
  onRead: (logicalId: string, attribute: string, value: unknown) => void;
}

/** The resolver's {@link ResolverEnvironment.liveAttribute} for a deploy. */
export function liveAttributeReader(
  options: LiveAttributeOptions,
): NonNullable<ResolverEnvironment['liveAttribute']> {
  return async (logicalId, _target, attribute) => {
    const record = options.record(logicalId);
    if (!record) return undefined;
    const value = await options.provisioner.readAttribute(record, logicalId, attribute, options.region);
    if (value === undefined) return value;
    // A live read of an attribute the type declares secret is masked wherever it is recorded.
    options.provisioner.registerSecretAttributes(record.resourceType, { [attribute]: value });
    options.onRead(logicalId, attribute, value);
    return value;
  };
}

/** `record` with one more attribute. */
export function withAttribute(record: ResourceState, attribute: string, value: unknown): ResourceState {
  return { ...record, attributes: { ...(record.attributes ?? {}), [attribute]: value } };
}
