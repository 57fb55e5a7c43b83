/** Amazon EC2 operations: what templates and lookups read. */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { availabilityZones, type AvailabilityZone } from './zones';

interface Filter {
  Name?: string;
  Values?: string[];
}

interface DescribeAvailabilityZonesInput {
  ZoneNames?: string[];
  ZoneIds?: string[];
  Filters?: Filter[];
}

const ZONE_FILTERS: Record<string, keyof AvailabilityZone> = {
  state: 'zoneState',
  'zone-name': 'zoneName',
  'zone-id': 'zoneId',
  'region-name': 'regionName',
};

export const ec2Operations: Operations = {
  DescribeAvailabilityZones: (ctx: CallContext, input: DescribeAvailabilityZonesInput) => {
    let zones = availabilityZones(ctx.region);
    for (const f of input.Filters ?? []) {
      const key = ZONE_FILTERS[f.Name ?? ''];
      if (!key) {
        if (f.Name === 'zone-type' || f.Name === 'opt-in-status') continue;
        throw new AwsError('InvalidParameterValue', `The filter '${f.Name}' is invalid`, 400);
      }
      zones = zones.filter((z) => (f.Values ?? []).includes(z[key]));
    }
    if (input.ZoneNames?.length) zones = zones.filter((z) => input.ZoneNames!.includes(z.zoneName));
    if (input.ZoneIds?.length) zones = zones.filter((z) => input.ZoneIds!.includes(z.zoneId));
    return {
      AvailabilityZones: zones.map((z) => ({
        OptInStatus: 'opt-in-not-required',
        ZoneName: z.zoneName,
        ZoneId: z.zoneId,
        State: z.zoneState,
        RegionName: z.regionName,
        GroupName: z.regionName,
        NetworkBorderGroup: z.regionName,
        ZoneType: 'availability-zone',
        Messages: [],
      })),
    };
  },
};
