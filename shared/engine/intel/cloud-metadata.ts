// Cloud instance-metadata endpoints that hand out credentials, as harvested by TeamTNT-style scripts. Reading
// instance-id or region from the same service is ordinary; these paths return tokens or keys.
import { InOrder } from "../in-order.js";

export interface MetadataCredentialPath {
  provider: string;
  pattern: RegExp;
  source: string;
}

export const METADATA_CREDENTIAL_PATHS: readonly MetadataCredentialPath[] = [
  {
    provider: "AWS EC2 IMDS",
    pattern: /(?:169\.254\.169\.254|\[?fd00:ec2::254\]?|instance-data)(?::80)?\/latest\/meta-data\/(?:iam\/security-credentials|identity-credentials\/ec2\/security-credentials)/i,
    source: "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-categories.html",
  },
  {
    provider: "AWS ECS task role",
    pattern: /169\.254\.170\.2(?::80)?\/v2\/credentials|169\.254\.170\.2(?::80)?\$\{?AWS_CONTAINER_CREDENTIALS_RELATIVE_URI/i,
    source: "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-iam-roles.html",
  },
  {
    provider: "GCP metadata server",
    pattern: /(?:metadata\.google\.internal|169\.254\.169\.254|metadata)(?::80)?\/computeMetadata\/v1(?:beta1)?\/instance\/service-accounts\/[^/\s]*\/(?:token|identity)/i,
    source: "https://cloud.google.com/compute/docs/access/authenticate-workloads#applications",
  },
  {
    provider: "Azure IMDS managed identity",
    pattern: /169\.254\.169\.254(?::80)?\/metadata\/identity\/oauth2\/token/i,
    source: "https://learn.microsoft.com/en-us/entra/identity/managed-identities-azure-resources/how-to-use-vm-token",
  },
  {
    provider: "Alibaba Cloud ECS metadata (RAM role)",
    pattern: /100\.100\.100\.200(?::80)?\/latest\/meta-data\/ram\/security-credentials/i,
    source: "https://www.alibabacloud.com/help/en/ecs/user-guide/attach-an-instance-ram-role-to-an-ecs-instance",
  },
  {
    provider: "Tencent Cloud metadata (CAM role)",
    pattern: /metadata\.tencentyun\.com(?::80)?\/latest\/meta-data\/cam\/security-credentials/i,
    source: "https://www.tencentcloud.com/document/product/213/4934",
  },
];

/** Public write-ups of the harvesting these paths are used for. */
export const METADATA_HARVEST_SOURCES: readonly string[] = [
  "https://www.cadosecurity.com/blog/team-tnt-the-first-crypto-mining-worm-to-steal-aws-credentials",
  "https://unit42.paloaltonetworks.com/teamtnt-operations-cloud-environments/",
  "https://attack.mitre.org/techniques/T1552/005/",
];

/** Hunting for access keys in files: AWS access key ids start with AKIA (long-term) or ASIA (temporary). */
/** A search tool, then an AWS key id prefix or key name later in its command (parts in order: linear in a line). */
export const ACCESS_KEY_HUNT = new InOrder(/[\n|;]/, [/\b(?:grep|egrep|rg|ag|ack|find)\b/i, /AKIA|ASIA|aws_secret_access_key|aws_access_key_id/i]);
export const ACCESS_KEY_HUNT_SOURCE = "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids";

export function metadataCredentialPath(text: string): MetadataCredentialPath | undefined {
  return METADATA_CREDENTIAL_PATHS.find((m) => m.pattern.test(text));
}
