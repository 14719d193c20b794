module example.com/humaneval/rescale_to_unit

go 1.22
