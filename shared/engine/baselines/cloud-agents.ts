// The clouds' own guest agents and tools, which talk to the instance metadata service as part of their job.
import type { SourceRef } from "./types.js";

export interface ProgramBaseline {
  id: string;
  description: string;
  sources: readonly SourceRef[];
  programs: readonly string[];
}

export const CLOUD_AGENTS: ProgramBaseline = {
  id: "cloud-guest-agents",
  description: "Cloud guest agents, provisioning and the cloud CLIs: they fetch instance credentials from the metadata service by design.",
  sources: [
    { kind: "doc", name: "github.com", url: "https://github.com/aws/amazon-ssm-agent" },
    { kind: "doc", name: "github.com", url: "https://github.com/aws/amazon-ecs-agent" },
    { kind: "doc", name: "github.com", url: "https://github.com/GoogleCloudPlatform/guest-agent", detail: "google_guest_agent, google_osconfig_agent" },
    { kind: "doc", name: "github.com", url: "https://github.com/Azure/WALinuxAgent", detail: "waagent" },
    { kind: "doc", name: "cloudinit.readthedocs.io", url: "https://cloudinit.readthedocs.io/en/latest/reference/datasources/ec2.html" },
    { kind: "doc", name: "github.com", url: "https://github.com/aws/aws-cli" },
  ],
  programs: [
    "amazon-ssm-agent", "ssm-agent-worker", "ssm-session-worker", "ecs-agent", "amazon-cloudwatch-agent", "aws", "aws_completer",
    "google_guest_agent", "google_osconfig_agent", "google_metadata_script_runner", "gcloud", "gsutil",
    "waagent", "walinuxagent", "azure-agent", "az",
    "cloud-init", "aliyun-service", "eks-node-monitoring-agent", "aws-node", "kubelet",
  ],
};
