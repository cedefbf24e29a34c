for i in range(200000):
    print("line %d of a very chatty script that prints megabytes" % i)
