/**
 * A test-only service on Route 53's published model (restXml): hosted zones
 * created, read and listed, to exercise the generic restXml codec (XML
 * request and response bodies, labels, query parameters, a response header,
 * a 201, modelled errors).
 */
import { AwsError, RestXmlCodec, type ServiceModule } from '../../src/index';

interface Zone {
  Id: string;
  Name: string;
  CallerReference: string;
  Config?: { Comment?: string; PrivateZone?: boolean };
  ResourceRecordSetCount: number;
}

export const route53Lite: ServiceModule = {
  name: 'route53',
  signingNames: ['route53'],
  create() {
    const zones = new Map<string, Zone>();
    let next = 1;
    return {
      protocol: new RestXmlCodec({
        model: () => require('@aws-sdk/client-route-53') as Record<string, unknown>,
        xmlns: 'https://route53.amazonaws.com/doc/2013-04-01/',
      }),
      operations: {
        CreateHostedZone: (
          _ctx,
          input: { Name: string; CallerReference: string; HostedZoneConfig?: Zone['Config'] },
        ) => {
          if (!/^[a-z0-9.-]+\.?$/.test(input.Name))
            throw new AwsError('InvalidInput', `Invalid domain name ${input.Name}`);
          const name = input.Name.endsWith('.') ? input.Name : `${input.Name}.`;
          if ([...zones.values()].some((z) => z.Name === name))
            throw new AwsError(
              'HostedZoneAlreadyExists',
              `A hosted zone has already been created with the specified caller reference.`,
            );
          const id = `Z${String(next++).padStart(20, '0')}`;
          const zone: Zone = {
            Id: `/hostedzone/${id}`,
            Name: name,
            CallerReference: input.CallerReference,
            Config: input.HostedZoneConfig,
            ResourceRecordSetCount: 2,
          };
          zones.set(id, zone);
          return {
            HostedZone: zone,
            ChangeInfo: {
              Id: `/change/C${id}`,
              Status: 'PENDING',
              SubmittedAt: new Date('2025-01-02T03:04:05Z'),
            },
            DelegationSet: { NameServers: ['ns-1.awsdns-01.org', 'ns-2.awsdns-02.com'] },
            Location: `https://route53.amazonaws.com/2013-04-01/hostedzone/${id}`,
          };
        },
        GetHostedZone: (_ctx, input: { Id: string }) => {
          const zone = zones.get(input.Id.replace(/^\/hostedzone\//, ''));
          if (!zone) throw new AwsError('NoSuchHostedZone', `No hosted zone found with ID: ${input.Id}`);
          return { HostedZone: zone, DelegationSet: { NameServers: ['ns-1.awsdns-01.org'] } };
        },
        ListHostedZones: (_ctx, input: { Marker?: string; MaxItems?: number }) => {
          const all = [...zones.keys()].sort();
          const start = input.Marker ? all.indexOf(input.Marker) : 0;
          const max = input.MaxItems ?? 100;
          const page = all.slice(start, start + max);
          const truncated = start + max < all.length;
          return {
            HostedZones: page.map((id) => zones.get(id)),
            Marker: input.Marker ?? '',
            IsTruncated: truncated,
            MaxItems: max,
            NextMarker: truncated ? all[start + max] : undefined,
          };
        },
      },
    };
  },
};
