module example.com/hello

go 1.22

require example.com/greet v1.0.0
