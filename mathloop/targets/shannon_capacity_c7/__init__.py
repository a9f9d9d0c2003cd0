"""The shannon-capacity-c7 target: lower bounds on Θ(C7) from independent sets in C7^⊠n."""
