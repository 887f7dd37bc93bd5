#!/usr/bin/perl
# rewrite.pl IN OUT: a lib/nn/cuda/*.cu or *.cuh file as C++ for the emulator
# (emu/cuda_emu.h). Two rewrites, each keeping the line count:
#   k<<<cfg>>>(args)   ->  emu_launch("k", __FILE__, __LINE__, emu_config(cfg),
#                                     [](auto... a) { k(a...); }, args)
#   __shared__ T x[N]; ->  T (&x)[N] = emu_shared<T[N]>([] {});
# Fails (no OUT written) when a launch or a __shared__ survives outside comments:
# a construct the emulator does not handle must not compile into something else.
use strict;
use warnings;

my ($in, $out) = @ARGV;
die "usage: rewrite.pl IN OUT\n" unless defined $out;
open my $fh, '<', $in or die "rewrite.pl: $in: $!\n";
my $s = do { local $/; <$fh> };
close $fh;

my $name = qr/\b[A-Za-z_]\w*(?:\s*<[^<>;()]*>)?/;           # kernel, maybe with template args
my $parens = qr/(\((?:[^()]++|(?-1))*+\))/;                 # balanced (...)
$s =~ s{($name)\s*<<<(.*?)>>>\s*$parens}{launch($1, $2, $3)}gse;
$s =~ s{(?<!extern )\b__shared__\s+([A-Za-z_][\w:]*(?:\s*<[^<>;]*>)?)\s+(\w+)\s*((?:\[[^\];]*\])*)\s*;}
       {$1 (&$2)$3 = emu_shared<$1$3>([] {});}g;

sub launch {
  my ($k, $cfg, $args) = @_;
  (my $callee = $k) =~ s/\s+//g;
  $args =~ s/^\(//;
  $args =~ s/\)$//;
  my $rest = $args =~ /\S/ ? ", $args" : "";
  return "emu_launch(\"$callee\", __FILE__, __LINE__, emu_config($cfg), "
       . "[](auto... a) { $callee(a...); }$rest)";
}

# Comments blanked (keeping newlines) so that only code is checked.
(my $code = $s) =~ s{//[^\n]*|/\*.*?\*/}{(my $c = $&) =~ s/[^\n]//g; $c}gse;
my $bad = 0;
my @lines = split /\n/, $code, -1;
for my $i (0 .. $#lines) {
  next unless $lines[$i] =~ /(<<<|__shared__)/;
  print STDERR "$in:" . ($i + 1) . ": the CUDA emulator does not handle this $1: $lines[$i]\n";
  $bad = 1;
}
exit 1 if $bad;
open my $oh, '>', $out or die "rewrite.pl: $out: $!\n";
print $oh "#line 1 \"$in\"\n", $s;
close $oh or die "rewrite.pl: $out: $!\n";
