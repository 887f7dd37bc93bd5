# A client that takes its answer late (nmt-serve's --send-timeout, tests/cli/serve_limits.cases):
#   perl tests/slow_reader.pl PORT BODY WAIT
# posts the file BODY to /translate with a 4 KB receive buffer, waits for the answer's first
# byte (so the time the server takes to translate, longer on a loaded machine, does not count),
# reads nothing more for WAIT seconds, then reads until the server closes the connection (20 s
# at most). Prints
# "whole" when the answer arrived complete (its Content-Length's bytes), else "cut".
use strict;
use warnings;
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_RCVBUF MSG_PEEK inet_aton pack_sockaddr_in);

my ($port, $file, $wait) = @ARGV;
$SIG{PIPE} = 'IGNORE';
open(my $f, '<', $file) or die "slow_reader.pl: $file: $!\n";
my $body = do { local $/; <$f> };
my $s = IO::Socket::INET->new(Proto => 'tcp') or die "slow_reader.pl: socket: $!\n";
setsockopt($s, SOL_SOCKET, SO_RCVBUF, 4096); # before connecting: the window stays small
$s->connect(pack_sockaddr_in($port, inet_aton('127.0.0.1'))) or die "slow_reader.pl: cannot connect to port $port: $!\n";
print $s "POST /translate HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nContent-Type: application/json\r\n"
  . "Content-Length: " . length($body) . "\r\nConnection: close\r\n\r\n" . $body;
recv($s, my $first, 1, MSG_PEEK); # blocks until the answer starts
sleep $wait;
my ($got, $end) = ('', time + 20);
while (time < $end) {
  my $n = sysread($s, my $buf, 1 << 20);
  last unless $n;
  $got .= $buf;
}
my ($head, $rest) = split /\r\n\r\n/, $got, 2;
my ($len) = ($head // '') =~ /^Content-Length: *(\d+)/mi;
print defined $len && defined $rest && length($rest) == $len ? "whole\n" : "cut\n";
