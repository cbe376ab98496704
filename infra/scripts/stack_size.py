"""Counts what CloudFormation and API Gateway will hold once SAM has transformed the template.

Usage: stack_size.py template.yaml MAX_RESOURCES MAX_ROUTES
Prints "<resources> <routes>" and exits 1 when either passes its limit. Runs the SAM translator
offline (the code location is replaced by a placeholder S3 URI; no managed policy is looked up).
"""
import os
import sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

METHODS = {"get", "put", "post", "delete", "patch", "options", "head", "x-amazon-apigateway-any-method"}


class NoManagedPolicies:
    def load(self):
        return {}


def main(path, max_resources, max_routes):
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    with open(path) as f:
        tpl = yaml_parse(f.read())
    tpl.setdefault("Globals", {}).setdefault("Function", {})["CodeUri"] = "s3://placeholder/code.zip"
    resources = transform(tpl, {"AWS::Region": "us-east-1"}, NoManagedPolicies())["Resources"]
    routes = 0
    for r in resources.values():
        if r["Type"] == "AWS::ApiGatewayV2::Api":
            for item in r["Properties"].get("Body", {}).get("paths", {}).values():
                routes += sum(1 for m in item if m.lower() in METHODS)
    print(f"{len(resources)} resources (limit {max_resources}), {routes} HTTP API routes (limit {max_routes})")
    return 0 if len(resources) <= max_resources and routes <= max_routes else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
