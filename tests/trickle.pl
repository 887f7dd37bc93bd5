# A slow HTTP client for the nmt-serve cases (tests/cli/serve_limits.cases):
#   perl tests/trickle.pl PORT HEAD GAP HOLD
# connects to 127.0.0.1:PORT, sends HEAD (\r and \n as escapes), then one byte "a"
# every GAP seconds, until the server closes the connection or HOLD seconds have passed.
# Prints the answer's first line and its last (the status and the JSON body), without
# \r; exits 0 when the server closed the connection, 1 when it was still open at HOLD.
use strict;
use warnings;
use IO::Select;
use IO::Socket::INET;
use Time::HiRes qw(time);

my ($port, $head, $gap, $hold) = @ARGV;
$SIG{PIPE} = 'IGNORE';
my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port, Proto => 'tcp')
  or die "trickle.pl: cannot connect to port $port: $!\n";
$head =~ s/\\r/\r/g;
$head =~ s/\\n/\n/g;
syswrite($s, $head);
my ($got, $closed, $end) = ('', 0, time + $hold);
my $sel = IO::Select->new($s);
while (!$closed && time < $end) {
  if ($sel->can_read($gap)) {
    my $n = sysread($s, my $buf, 65536);
    $closed = !$n;
    $got .= $buf if $n;
  } else {
    syswrite($s, 'a');
  }
}
$got =~ s/\r//g;
my @lines = split /\n/, $got;
print "$lines[0]\n$lines[-1]\n" if @lines;
exit($closed ? 0 : 1);
