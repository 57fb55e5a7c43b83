/**
 * AWS's public SSM parameters for the common AMI aliases, present in every
 * region and readable by GetParameter(s) and GetParametersByPath, as AWS
 * publishes them (docs: "Calling AMI public parameters in Parameter Store";
 * the Amazon Linux, Windows, ECS-optimized, Bottlerocket and Canonical Ubuntu
 * families). Each resolves to an AMI id that is stable per region and name.
 */
import { createHash } from 'node:crypto';
import type { Parameter } from './store';
import { WINDOWS_AMI_ALIASES } from './windows-amis';

function product(...lists: string[][]): string[] {
  return lists.reduce<string[]>((acc, list) => acc.flatMap((a) => list.map((b) => a + b)), ['']);
}

const ARCHS = ['x86_64', 'arm64'];

/** `/aws/service/ami-amazon-linux-latest/...` for AL1, AL2, AL2022 and AL2023. */
const AMAZON_LINUX = [
  ...product(
    ['amzn-ami-'],
    ['', 'minimal-'],
    ['hvm-', 'pv-'],
    ARCHS.map((a) => `${a}-`),
    ['ebs', 'gp2', 's3'],
  ),
  ...product(
    ['amzn2-ami-'],
    ['', 'minimal-'],
    ['', 'kernel-5.10-'],
    ['hvm-'],
    ARCHS.map((a) => `${a}-`),
    ['ebs', 'gp2', 's3'],
  ),
  ...product(['al2022-ami-'], ['', 'minimal-'], ['kernel-default-', 'kernel-5.15-'], ARCHS),
  ...product(['al2023-ami-'], ['', 'minimal-'], ['kernel-default-', 'kernel-6.1-', 'kernel-6.12-'], ARCHS),
].map((n) => `/aws/service/ami-amazon-linux-latest/${n}`);

const ECS_OPTIMIZED = [
  'amazon-linux',
  'amazon-linux-2',
  'amazon-linux-2/arm64',
  'amazon-linux-2/gpu',
  'amazon-linux-2/inf',
  'amazon-linux-2/kernel-5.10',
  'amazon-linux-2/kernel-5.10/arm64',
  'amazon-linux-2023',
  'amazon-linux-2023/arm64',
  'amazon-linux-2023/gpu',
  'amazon-linux-2023/neuron',
].map((n) => `/aws/service/ecs/optimized-ami/${n}/recommended/image_id`);

const BOTTLEROCKET = product(
  ['/aws/service/bottlerocket/'],
  [
    'aws-ecs-1',
    'aws-ecs-1-nvidia',
    'aws-ecs-2',
    'aws-ecs-2-nvidia',
    'aws-k8s-1.29',
    'aws-k8s-1.30',
    'aws-k8s-1.31',
    'aws-k8s-1.32',
  ],
  ARCHS.map((a) => `/${a}/latest/image_id`),
);

const UBUNTU = product(
  ['/aws/service/canonical/ubuntu/server/'],
  ['20.04', '22.04', '24.04'],
  ['/stable/current/'],
  ['amd64', 'arm64'],
  ['/hvm/ebs-gp2/ami-id', '/hvm/ebs-gp3/ami-id'],
);

const WINDOWS = WINDOWS_AMI_ALIASES.flatMap((alias) => {
  const name = `/aws/service/ami-windows-latest/${alias}`;
  return alias.endsWith('ECS_Optimized') ? [name, `${name}/image_id`] : [name];
});

const NAMES = new Set([...AMAZON_LINUX, ...ECS_OPTIMIZED, ...BOTTLEROCKET, ...UBUNTU, ...WINDOWS]);
const SORTED = [...NAMES].sort();
/** When the aliases were last "updated" (a fixed date keeps answers stable). */
const PUBLISHED = new Date('2025-01-01T00:00:00Z');

/** True for a name in AWS's public namespace (`/aws/service/...`). */
export function isPublicParameter(name: string): boolean {
  return name.startsWith('/aws/service/');
}

/** An AMI id stable for a region and alias: `ami-` and 17 hex digits. */
export function publicAmiId(region: string, name: string): string {
  return `ami-${createHash('sha256').update(`${region}|${name}`).digest('hex').slice(0, 17)}`;
}

/** Public parameters as the store serves them, one set per region. */
export class PublicParameters {
  private readonly byRegion = new Map<string, Map<string, Parameter>>();

  private parameter(region: string, name: string): Parameter {
    let regional = this.byRegion.get(region);
    if (!regional) this.byRegion.set(region, (regional = new Map()));
    let parameter = regional.get(name);
    if (!parameter) {
      parameter = {
        account: '',
        region,
        name,
        tags: {},
        versions: [
          {
            version: 1,
            value: publicAmiId(region, name),
            type: 'String',
            dataType: 'aws:ec2:image',
            tier: 'Standard',
            lastModified: PUBLISHED,
            lastModifiedUser: 'arn:aws:iam::aws:root',
            labels: [],
          },
        ],
      };
      regional.set(name, parameter);
    }
    return parameter;
  }

  get(region: string, name: string): Parameter | undefined {
    return NAMES.has(name) ? this.parameter(region, name) : undefined;
  }

  /** Every public parameter under a path (GetParametersByPath). */
  under(region: string, prefix: string): Parameter[] {
    return SORTED.filter((n) => n.startsWith(prefix)).map((n) => this.parameter(region, n));
  }
}
