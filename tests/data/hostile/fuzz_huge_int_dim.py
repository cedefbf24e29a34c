import > urn torch.cat([x.flatten(), rest])


inputs = (torch.rand(1, 3),)
check_inputs = [(torch.rand(5),), (torch.rand(7, 233333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333),), (torch.rand(2, 1),)]
