/**
 * Cloud Control figures for the `realistic` latency profile: its own API
 * calls, and request → SUCCESS for the types no service folder times itself.
 * A type's figure belongs in the folder of the service that owns it.
 */
import type { LatencyFigures } from '../../core/service';

const seconds = (create: number, update = create, del = create) => ({
  create: create * 1000,
  update: update * 1000,
  delete: del * 1000,
});

export const cloudControlLatency: LatencyFigures = {
  operations: { '*': 100, CreateResource: 200, UpdateResource: 200, DeleteResource: 200 },
  resourceTypes: {
    '*': seconds(5),
    'AWS::SNS::Topic': seconds(2),
    'AWS::SNS::Subscription': seconds(3),
    'AWS::Events::EventBus': seconds(2),
    'AWS::Events::Rule': seconds(3),
    'AWS::ECR::Repository': seconds(2),
    'AWS::EC2::VPC': seconds(5),
    'AWS::EC2::Subnet': seconds(5),
    'AWS::EC2::RouteTable': seconds(3),
    'AWS::EC2::Route': seconds(3),
    'AWS::EC2::SecurityGroup': seconds(5),
    'AWS::EC2::InternetGateway': seconds(15),
    'AWS::EC2::VPCGatewayAttachment': seconds(15),
    'AWS::EC2::EIP': seconds(5),
    'AWS::EC2::NatGateway': seconds(90, 10, 60),
    'AWS::EC2::Instance': seconds(30, 30, 60),
    'AWS::ECS::Cluster': seconds(5),
    'AWS::ECS::TaskDefinition': seconds(3),
    'AWS::ECS::Service': seconds(60, 60, 120),
    'AWS::RDS::DBInstance': seconds(600, 300, 300),
    'AWS::RDS::DBCluster': seconds(300, 120, 120),
    'AWS::EKS::Cluster': seconds(600, 300, 300),
    'AWS::CloudFront::Distribution': seconds(300, 300, 300),
    'AWS::ElasticLoadBalancingV2::LoadBalancer': seconds(180, 30, 60),
  },
  sources: [
    'Cloud Control API calls themselves answer in about a hundred milliseconds (commonly measured; the work happens asynchronously)',
    'request → SUCCESS per type: typical CloudFormation stack-event durations (seconds for most types, minutes for NAT gateways, load balancers, ECS services, RDS, EKS, CloudFront), orders of magnitude rather than promises',
  ],
};
