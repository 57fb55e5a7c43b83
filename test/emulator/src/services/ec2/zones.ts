/** Availability zones: fixed per region, shaped as AWS names them. */

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
