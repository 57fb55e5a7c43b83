/**
 * Amazon EC2 (EC2 query protocol), only what templates read: DescribeAvailabilityZones
 * (for Fn::GetAZs). Zones are fixed per region.
 */
import { AwsError } from '../core/errors';
import type { EmulatorRequest, EmulatorResponse } from '../core/http';
import { missingAuthToken, queryParams } from '../core/query-protocol';
import type { CallContext, RoutedCall, ServiceHandler } from '../core/service';
import { xmlDocument } from '../core/xml';

const EC2_NS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

/** Zone letters per region; regions not listed have a, b and c. */
const ZONE_LETTERS: Record<string, string> = {
  'us-east-1': 'abcdef',
  'us-west-1': 'ac',
  'us-west-2': 'abcd',
  'ap-northeast-1': 'acd',
  'ap-northeast-2': 'abcd',
  'ca-central-1': 'abd',
  'sa-east-1': 'abc',
};

/** `us-east-1` → `use1`, as zone ids are formed. */
function regionCode(region: string): string {
  const [area, direction, number] = region.split('-');
  const dir = (direction ?? '')
    .replace('north', 'n')
    .replace('south', 's')
    .replace('east', 'e')
    .replace('west', 'w')
    .replace('central', 'c');
  return `${area}${dir.length > 2 ? dir[0] : dir}${number ?? ''}`;
}

export interface AvailabilityZone {
  zoneName: string;
  zoneId: string;
  regionName: string;
  zoneState: string;
}

export function availabilityZones(region: string): AvailabilityZone[] {
  const letters = ZONE_LETTERS[region] ?? 'abc';
  return [...letters].map((letter, i) => ({
    zoneName: `${region}${letter}`,
    zoneId: `${regionCode(region)}-az${i + 1}`,
    regionName: region,
    zoneState: 'available',
  }));
}

/** `Filter.N.Name` / `Filter.N.Value.M` parameters. */
function filters(params: URLSearchParams): Array<{ name: string; values: string[] }> {
  const out = new Map<string, { name: string; values: string[] }>();
  for (const [key, value] of params) {
    const m = /^Filter\.(\d+)\.(Name|Value\.\d+)$/.exec(key);
    if (!m) continue;
    const entry = out.get(m[1]!) ?? { name: '', values: [] };
    if (m[2] === 'Name') entry.name = value;
    else entry.values.push(value);
    out.set(m[1]!, entry);
  }
  return [...out.values()];
}

export class Ec2Service implements ServiceHandler {
  readonly name = 'ec2';

  route(req: EmulatorRequest): RoutedCall {
    const params = queryParams(req);
    const action = params.get('Action') ?? '';
    if (action !== 'DescribeAvailabilityZones') {
      throw new AwsError('InvalidAction', `The action ${action} is not valid for this web service.`, 400);
    }
    return { operation: action, run: (ctx) => this.describeAvailabilityZones(ctx, params) };
  }

  errorResponse(err: AwsError, _req: EmulatorRequest, requestId: string): EmulatorResponse {
    return {
      status: err.status,
      headers: { 'content-type': 'text/xml;charset=UTF-8' },
      body: xmlDocument('Response', {
        Errors: { Error: { Code: err.code, Message: err.message } },
        RequestID: requestId,
      }),
    };
  }

  unsignedError(): AwsError {
    return missingAuthToken();
  }

  faultFor(status: number): { code: string; status: number } {
    if (status === 503) return { code: 'Unavailable', status };
    if (status === 429) return { code: 'RequestLimitExceeded', status: 503 };
    if (status >= 500) return { code: 'InternalError', status };
    return { code: 'InvalidParameterValue', status };
  }

  private describeAvailabilityZones(ctx: CallContext, params: URLSearchParams): EmulatorResponse {
    const names = [...params].filter(([k]) => /^ZoneName\.\d+$/.test(k)).map(([, v]) => v);
    const ids = [...params].filter(([k]) => /^ZoneId\.\d+$/.test(k)).map(([, v]) => v);
    let zones = availabilityZones(ctx.region);
    for (const f of filters(params)) {
      const field: Record<string, keyof AvailabilityZone> = {
        state: 'zoneState',
        'zone-name': 'zoneName',
        'zone-id': 'zoneId',
        'region-name': 'regionName',
      };
      const key = field[f.name];
      if (!key) {
        if (f.name === 'zone-type' || f.name === 'opt-in-status') continue;
        throw new AwsError('InvalidParameterValue', `The filter '${f.name}' is invalid`, 400);
      }
      zones = zones.filter((z) => f.values.includes(z[key]));
    }
    if (names.length) zones = zones.filter((z) => names.includes(z.zoneName));
    if (ids.length) zones = zones.filter((z) => ids.includes(z.zoneId));
    return {
      status: 200,
      headers: { 'content-type': 'text/xml;charset=UTF-8' },
      body: xmlDocument(
        'DescribeAvailabilityZonesResponse',
        {
          requestId: ctx.requestId,
          availabilityZoneInfo: {
            item: zones.map((z) => ({
              optInStatus: 'opt-in-not-required',
              zoneName: z.zoneName,
              zoneId: z.zoneId,
              zoneState: z.zoneState,
              regionName: z.regionName,
              groupName: z.regionName,
              networkBorderGroup: z.regionName,
              zoneType: 'availability-zone',
              messageSet: {},
            })),
          },
        },
        EC2_NS,
      ),
    };
  }
}
