/**
 * With no network a sandbox's /etc/hosts is empty (Docker) or whatever the image holds (an unpacked tree), so
 * `localhost` may not resolve although the loopback interface is up: Django's LiveServer tests (and anything
 * binding "localhost") then error before testing anything. The harness' containers have the standard file;
 * this script writes it, with the sandbox's own hostname on 127.0.1.1 as Debian does.
 */
export const LOOPBACK_HOSTS_SCRIPT = [
  'h=$(hostname 2>/dev/null || cat /etc/hostname)',
  'printf \'127.0.0.1\\tlocalhost\\n::1\\tlocalhost ip6-localhost ip6-loopback\\nfe00::0\\tip6-localnet\\nff00::0\\tip6-mcastprefix\\nff02::1\\tip6-allnodes\\nff02::2\\tip6-allrouters\\n127.0.1.1\\t%s\\n\' "$h" > /etc/hosts',
].join('\n');

/** The same file as text, for a kind that writes it from the host before the sandbox's first command. */
export function loopbackHostsFile(hostname: string): string {
  return `127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n127.0.1.1\t${hostname}\n`;
}
