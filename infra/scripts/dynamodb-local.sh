#!/usr/bin/env bash
# Fetches DynamoDB Local and its sqlite4java native libraries from Maven Central into
# .cache/dynamodb-local/lib (jars and .so files, version-less names so that sqlite4java finds
# its native library by its plain name). Maven's own repository is kept in .cache/m2, so
# nothing lands outside the repository. Idempotent: a stamp holding the artifact skips the
# fetch. The main class to run is written to .cache/dynamodb-local/main-class.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$root/.cache/dynamodb-local"
stamp="$dir/.fetched"
log="$dir/fetch.log"

# Pinned for reproducible tests. 3.1.0 is the newest 3.x whose dependencies all resolve from
# the registry this project can reach (3.3.1's pom names AWS SDK 2.48.3 artifacts such as
# cognitoidentity that are not there). v2 (legacy group id and package names) is the fallback.
candidates=(
	"software.amazon.dynamodb:DynamoDBLocal:3.1.0:software.amazon.dynamodb.services.local.main.ServerRunner"
	"com.amazonaws:DynamoDBLocal:2.6.1:com.amazonaws.services.dynamodbv2.local.main.ServerRunner"
)

die() {
	echo "dynamodb-local.sh: $*" >&2
	exit 1
}

command -v java >/dev/null || die "java not found (DynamoDB Local needs a JRE 17 or newer)"
command -v mvn >/dev/null || die "mvn not found (Maven fetches DynamoDB Local from Maven Central)"

if [[ -f "$stamp" && -f "$dir/main-class" ]] && compgen -G "$dir/lib/DynamoDBLocal*.jar" >/dev/null; then
	for c in "${candidates[@]}"; do
		[[ "$(cat "$stamp")" == "$c" ]] && exit 0
	done
fi

case "$(uname -m)" in
x86_64 | amd64) native=libsqlite4java-linux-amd64 ;;
*) native="" ;; # Maven Central has no aarch64 build of sqlite4java 1.0.392.
esac

# fetch GROUP ARTIFACT VERSION: writes a throwaway pom and copies the artifact with its
# runtime dependencies (among them the sqlite4java natives the DynamoDB Local pom lists).
fetch() {
	local group=$1 artifact=$2 version=$3
	cat >"$dir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.evalapi</groupId>
  <artifactId>dynamodb-local-fetch</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>$group</groupId>
      <artifactId>$artifact</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
POM
	rm -rf "${dir:?}/lib"
	mvn -q -B -f "$dir/pom.xml" -Dmaven.repo.local="$root/.cache/m2" \
		org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
		-DoutputDirectory="$dir/lib" -DincludeScope=runtime -Dmdep.stripVersion=true
}

mkdir -p "$dir"
rm -f "$stamp"
: >"$log"
for c in "${candidates[@]}"; do
	IFS=: read -r group artifact version main <<<"$c"
	echo "== $group:$artifact:$version" >>"$log"
	if fetch "$group" "$artifact" "$version" >>"$log" 2>&1; then
		if [[ -n "$native" && ! -f "$dir/lib/$native.so" ]]; then
			echo "no $native.so among the fetched files" >>"$log"
			continue
		fi
		echo "$main" >"$dir/main-class"
		echo "$c" >"$stamp"
		exit 0
	fi
done
tail -n 40 "$log" >&2
die "could not fetch DynamoDB Local from Maven Central; full log in $log"
