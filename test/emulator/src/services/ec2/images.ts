/**
 * DescribeImages (what `ec2.MachineImage.lookup` and the CDK AMI context
 * provider call): a catalogue of the public images AWS and Canonical publish,
 * two releases per family and architecture, in every region. The newest
 * release of a family that has a public SSM alias carries the id that alias
 * resolves to (`ssm/public-parameters.ts`), so a lookup and an SSM alias agree
 * as they do on AWS. Owners, ImageIds, ExecutableUsers, the documented
 * filters, IncludeDeprecated, paging and the API reference's errors.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { publicAmiId } from '../ssm/public-parameters';
import { availabilityZones } from './zones';
import { applyFilters, page, selectIds, type Filter, type FilterFields, type Tag } from './filters';

/** What DescribeImages answers for one image (the members CDK and tools read). */
export interface Image {
  ImageId: string;
  Name: string;
  Description: string;
  OwnerId: string;
  ImageOwnerAlias?: string;
  Architecture: 'x86_64' | 'arm64';
  CreationDate: string;
  DeprecationTime?: string;
  ImageLocation: string;
  ImageType: 'machine';
  Public: boolean;
  State: 'available';
  Platform?: 'windows';
  PlatformDetails: string;
  UsageOperation: string;
  RootDeviceType: 'ebs';
  RootDeviceName: string;
  VirtualizationType: 'hvm';
  Hypervisor: 'xen';
  EnaSupport: boolean;
  SriovNetSupport: 'simple';
  BootMode?: string;
  BlockDeviceMappings: Array<{
    DeviceName: string;
    Ebs: {
      DeleteOnTermination: boolean;
      SnapshotId: string;
      VolumeSize: number;
      VolumeType: string;
      Encrypted: boolean;
    };
  }>;
  Tags: Tag[];
}

const AMAZON = '137112412989';
const AMAZON_WINDOWS = '801119661308';
const CANONICAL = '099720109477';

/**
 * One image family. `name(release, arch)` is the image name AWS uses for it;
 * `alias(arch)` the public SSM parameter that points at the newest release.
 */
interface Family {
  owner: string;
  alias?: string;
  archs: Array<'x86_64' | 'arm64'>;
  name: (release: Release, arch: string) => string;
  parameter?: (arch: string) => string | undefined;
  windows?: boolean;
  description: string;
  rootDevice: string;
  volumeSize: number;
}

/** A release: when it was made, and the date stamp names carry. */
interface Release {
  date: string;
  stamp: string;
}

/** Two releases per family, older first; the older one is deprecated when the newer one is published. */
const RELEASES: Release[] = [
  { date: '2024-11-04T21:17:33.000Z', stamp: '20241104' },
  { date: '2025-01-06T19:45:02.000Z', stamp: '20250106' },
];

const ubuntuArch = (arch: string) => (arch === 'x86_64' ? 'amd64' : 'arm64');
const AL_PARAM = '/aws/service/ami-amazon-linux-latest/';

const FAMILIES: Family[] = [
  {
    owner: AMAZON,
    alias: 'amazon',
    archs: ['x86_64', 'arm64'],
    name: (r, a) => `al2023-ami-2023.6.${r.stamp}.0-kernel-6.1-${a}`,
    parameter: (a) => `${AL_PARAM}al2023-ami-kernel-6.1-${a}`,
    description: 'Amazon Linux 2023 AMI',
    rootDevice: '/dev/xvda',
    volumeSize: 8,
  },
  {
    owner: AMAZON,
    alias: 'amazon',
    archs: ['x86_64', 'arm64'],
    name: (r, a) => `al2023-ami-minimal-2023.6.${r.stamp}.0-kernel-6.1-${a}`,
    parameter: (a) => `${AL_PARAM}al2023-ami-minimal-kernel-6.1-${a}`,
    description: 'Amazon Linux 2023 minimal AMI',
    rootDevice: '/dev/xvda',
    volumeSize: 2,
  },
  {
    owner: AMAZON,
    alias: 'amazon',
    archs: ['x86_64', 'arm64'],
    name: (r, a) => `amzn2-ami-kernel-5.10-hvm-2.0.${r.stamp}.0-${a}-gp2`,
    parameter: (a) => `${AL_PARAM}amzn2-ami-kernel-5.10-hvm-${a}-gp2`,
    description: 'Amazon Linux 2 Kernel 5.10 AMI',
    rootDevice: '/dev/xvda',
    volumeSize: 8,
  },
  {
    owner: AMAZON,
    alias: 'amazon',
    archs: ['x86_64', 'arm64'],
    name: (r, a) => `amzn2-ami-hvm-2.0.${r.stamp}.0-${a}-gp2`,
    parameter: (a) => `${AL_PARAM}amzn2-ami-hvm-${a}-gp2`,
    description: 'Amazon Linux 2 AMI',
    rootDevice: '/dev/xvda',
    volumeSize: 8,
  },
  {
    owner: CANONICAL,
    archs: ['x86_64', 'arm64'],
    name: (r, a) => `ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-${ubuntuArch(a)}-server-${r.stamp}`,
    parameter: (a) =>
      `/aws/service/canonical/ubuntu/server/24.04/stable/current/${ubuntuArch(a)}/hvm/ebs-gp3/ami-id`,
    description: 'Canonical, Ubuntu, 24.04, amd64 noble image',
    rootDevice: '/dev/sda1',
    volumeSize: 8,
  },
  {
    owner: CANONICAL,
    archs: ['x86_64', 'arm64'],
    name: (r, a) => `ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-${ubuntuArch(a)}-server-${r.stamp}`,
    parameter: (a) =>
      `/aws/service/canonical/ubuntu/server/22.04/stable/current/${ubuntuArch(a)}/hvm/ebs-gp2/ami-id`,
    description: 'Canonical, Ubuntu, 22.04 LTS, amd64 jammy image',
    rootDevice: '/dev/sda1',
    volumeSize: 8,
  },
  {
    owner: AMAZON_WINDOWS,
    alias: 'amazon',
    archs: ['x86_64'],
    windows: true,
    name: (r) =>
      `Windows_Server-2022-English-Full-Base-${r.stamp.slice(0, 4)}.${r.stamp.slice(4, 6)}.${r.stamp.slice(6)}`,
    parameter: () => '/aws/service/ami-windows-latest/Windows_Server-2022-English-Full-Base',
    description: 'Microsoft Windows Server 2022 Full Locale English AMI provided by Amazon',
    rootDevice: '/dev/sda1',
    volumeSize: 30,
  },
];

/** A stable id for an image that no public alias points at. */
const releaseId = (region: string, name: string) => publicAmiId(region, `image:${name}`);

/** The public images of a region, in a stable order. */
export function publicImages(region: string): Image[] {
  return FAMILIES.flatMap((family) =>
    family.archs.flatMap((arch) =>
      RELEASES.map((release, i): Image => {
        const newest = i === RELEASES.length - 1;
        const name = family.name(release, arch);
        const parameter = newest ? family.parameter?.(arch) : undefined;
        const id = parameter ? publicAmiId(region, parameter) : releaseId(region, name);
        return {
          ImageId: id,
          Name: name,
          Description: family.description,
          OwnerId: family.owner,
          ImageOwnerAlias: family.alias,
          Architecture: arch,
          CreationDate: release.date,
          // A superseded release is deprecated (fixed dates keep answers the same on any day).
          ...(newest ? {} : { DeprecationTime: RELEASES[i + 1]!.date }),
          ImageLocation: `${family.alias ?? family.owner}/${name}`,
          ImageType: 'machine',
          Public: true,
          State: 'available',
          ...(family.windows ? { Platform: 'windows' as const } : {}),
          PlatformDetails: family.windows ? 'Windows' : 'Linux/UNIX',
          UsageOperation: family.windows ? 'RunInstances:0002' : 'RunInstances',
          RootDeviceType: 'ebs',
          RootDeviceName: family.rootDevice,
          VirtualizationType: 'hvm',
          Hypervisor: 'xen',
          EnaSupport: true,
          SriovNetSupport: 'simple',
          ...(arch === 'arm64' ? { BootMode: 'uefi' } : {}),
          BlockDeviceMappings: [
            {
              DeviceName: family.rootDevice,
              Ebs: {
                DeleteOnTermination: true,
                SnapshotId: `snap-${id.slice(4)}`,
                VolumeSize: family.volumeSize,
                VolumeType: 'gp3',
                Encrypted: false,
              },
            },
          ],
          Tags: [],
        };
      }),
    ),
  );
}

const IMAGE_FILTERS: FilterFields<Image> = {
  architecture: (i) => i.Architecture,
  'block-device-mapping.delete-on-termination': (i) =>
    i.BlockDeviceMappings.map((b) => b.Ebs.DeleteOnTermination),
  'block-device-mapping.device-name': (i) => i.BlockDeviceMappings.map((b) => b.DeviceName),
  'block-device-mapping.snapshot-id': (i) => i.BlockDeviceMappings.map((b) => b.Ebs.SnapshotId),
  'block-device-mapping.volume-size': (i) => i.BlockDeviceMappings.map((b) => b.Ebs.VolumeSize),
  'block-device-mapping.volume-type': (i) => i.BlockDeviceMappings.map((b) => b.Ebs.VolumeType),
  'block-device-mapping.encrypted': (i) => i.BlockDeviceMappings.map((b) => b.Ebs.Encrypted),
  'creation-date': (i) => i.CreationDate,
  description: (i) => i.Description,
  'ena-support': (i) => i.EnaSupport,
  hypervisor: (i) => i.Hypervisor,
  'image-id': (i) => i.ImageId,
  'image-type': (i) => i.ImageType,
  'is-public': (i) => i.Public,
  'manifest-location': (i) => i.ImageLocation,
  name: (i) => i.Name,
  'owner-alias': (i) => i.ImageOwnerAlias,
  'owner-id': (i) => i.OwnerId,
  platform: (i) => i.Platform,
  'platform-details': (i) => i.PlatformDetails,
  'root-device-name': (i) => i.RootDeviceName,
  'root-device-type': (i) => i.RootDeviceType,
  'sriov-net-support': (i) => i.SriovNetSupport,
  state: (i) => i.State,
  'usage-operation': (i) => i.UsageOperation,
  'virtualization-type': (i) => i.VirtualizationType,
};

interface DescribeImagesInput {
  ImageIds?: string[];
  Owners?: string[];
  ExecutableUsers?: string[];
  Filters?: Filter[];
  IncludeDeprecated?: boolean;
  IncludeDisabled?: boolean;
  MaxResults?: number;
  NextToken?: string;
  DryRun?: boolean;
}

const OWNER_ALIASES = new Set(['self', 'amazon', 'aws-backup-vault', 'aws-marketplace']);

/** Keeps the images one of `owners` owns: an account id, `self` (the caller) or an owner alias. */
function byOwner(images: Image[], owners: string[], account: string): Image[] {
  for (const owner of owners)
    if (!OWNER_ALIASES.has(owner) && !/^\d{12}$/.test(owner))
      throw new AwsError('InvalidUserID.Malformed', `Invalid user id: "${owner}"`, 400);
  return images.filter((i) =>
    owners.some((o) => (o === 'self' ? i.OwnerId === account : o === i.OwnerId || o === i.ImageOwnerAlias)),
  );
}

function describeImages(ctx: CallContext, input: DescribeImagesInput) {
  if (input.DryRun)
    throw new AwsError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
  if (input.ImageIds?.length && input.MaxResults !== undefined)
    throw new AwsError(
      'InvalidParameterCombination',
      'The parameter imageIdsSet cannot be used with the parameter maxResults',
      400,
    );
  // Every region has the catalogue; an unknown region has no zones and so no images.
  let images = availabilityZones(ctx.region).length ? publicImages(ctx.region) : [];
  for (const id of input.ImageIds ?? [])
    if (!/^ami-[0-9a-f]{8}([0-9a-f]{9})?$/.test(id))
      throw new AwsError('InvalidAMIID.Malformed', `Invalid id: "${id}" (expecting "ami-...")`, 400);
  images = selectIds(images, input.ImageIds, (i) => i.ImageId, {
    code: 'InvalidAMIID.NotFound',
    noun: 'image',
  });
  // Deprecated images are listed only when asked for, or when named by id.
  if (!input.IncludeDeprecated && !input.ImageIds?.length) images = images.filter((i) => !i.DeprecationTime);
  if (input.Owners?.length) images = byOwner(images, input.Owners, ctx.account);
  // ExecutableUsers: every catalogued image is public, so `all` and any account may launch it.
  images = applyFilters(images, input.Filters, IMAGE_FILTERS, (i) => i.Tags);
  const { items, nextToken } = page(images, input, { min: 5, max: 1000 });
  return { Images: items, NextToken: nextToken };
}

export const imageOperations: Operations = {
  DescribeImages: describeImages,
};
